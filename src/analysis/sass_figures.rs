//! The traced figure of a SASS memory instruction's line: what the PTX accesses of that
//! source line, space and direction measured, in the words the lab uses elsewhere, so the
//! SASS can be read beside where every access went.

use super::sass::MemKind;
use crate::model::access::{AccessKind, InstructionSummary, Space};

/// A line's figure: in words, its cost per request (to list the worst first), and what
/// ptxas did differently from the PTX, if anything.
#[derive(Debug, Clone, PartialEq)]
pub struct LineFigure {
    pub text: String,
    pub cost: f64,
    pub note: Option<String>,
    /// Active lanes per request, where the trace counted them.
    pub lanes: Option<f64>,
}

impl LineFigure {
    /// The figure with the lanes that took part: "32 wavefronts/request (ideal 1) · 32 lanes".
    pub fn full(&self) -> String {
        match self.lanes {
            Some(l) => format!("{} · {} lanes", self.text, num(l)),
            None => self.text.clone(),
        }
    }
}

/// The traced instructions behind SASS memory instructions of `kind` on `line`, summed;
/// None where nothing of the kind was traced there.
pub fn line_figure(traced: &[InstructionSummary], line: u32, kind: MemKind) -> Option<LineFigure> {
    let (space, dir) = space_of(kind)?;
    let same_kind = |k: AccessKind| k == dir || (dir.is_atomic() && k.is_atomic());
    let here: Vec<&InstructionSummary> = (traced.iter())
        .filter(|i| i.source_line == Some(line) && same_kind(i.kind))
        .filter(|i| space.is_none_or(|s| s == i.space))
        .collect();
    let first = here.first()?;
    let requests: u64 = here.iter().map(|i| i.requests).sum();
    if requests == 0 {
        return None;
    }
    let per = |f: fn(&InstructionSummary) -> u64| {
        here.iter().map(|i| f(i)).sum::<u64>() as f64 / requests as f64
    };
    let (text, cost) = match first.space {
        Space::Shared => {
            let w = per(|i| i.wavefronts);
            let ideal = per(|i| i.ideal_wavefronts);
            (
                format!("{} wavefronts/request (ideal {})", num(w), num(ideal)),
                w / ideal.max(1.0),
            )
        }
        Space::Global => {
            let s = per(|i| i.sectors);
            (format!("{} sectors/request", num(s)), s / 4.0)
        }
        Space::Local => {
            let b = per(|i| i.local_bytes);
            (format!("{b:.0} local bytes/request"), b / 128.0)
        }
        Space::Constant => {
            let d = per(|i| i.distinct);
            (format!("{} addresses/request", num(d)), d)
        }
        Space::Texture => {
            let t = per(|i| i.texels);
            (format!("{} texels/request", num(t)), t / 32.0)
        }
        Space::Cluster => {
            let s = per(|i| i.sectors);
            (format!("{} sectors/request", num(s)), s / 4.0)
        }
        // A traced request is resolved to its space; none is summarised as these.
        Space::Generic | Space::Param => return None,
    };
    // An atomic's contention: the lanes of its SASS requests per address they named.
    let (lanes, addresses) = (here.iter().filter_map(|i| i.atomic.as_ref()))
        .fold((0, 0), |(l, a), t| (l + t.lanes, a + t.addresses));
    let text = match addresses {
        0 => text,
        _ => format!(
            "{text} · {} lanes/address",
            num(lanes as f64 / addresses as f64)
        ),
    };
    // Loads whose values nothing uses (`InstructionSummary::unused`): made only to be
    // counted, which a learner looking at this line should know.
    let unused: u64 = (here.iter().filter(|i| i.unused)).map(|i| i.requests).sum();
    let text = match unused {
        0 => text,
        u if u == requests => format!("{text} · values never used"),
        u => format!(
            "{text} · {}% of values never used",
            num(100.0 * u as f64 / requests as f64)
        ),
    };
    let note = (here.iter())
        .find_map(|i| i.sass.as_ref())
        .map(|s| s.note.clone());
    // Lanes are counted per PTX access, whatever the SASS made of it.
    let ptx_requests: u64 = (here.iter())
        .map(|i| match (&i.atomic, &i.sass) {
            (Some(a), _) => a.ptx_requests,
            (None, Some(s)) => s.ptx_requests,
            (None, None) => i.requests,
        })
        .sum();
    let lanes: u64 = here.iter().map(|i| i.lanes).sum();
    let lanes = (lanes > 0 && ptx_requests > 0).then(|| lanes as f64 / ptx_requests as f64);
    Some(LineFigure {
        text,
        cost,
        note,
        lanes,
    })
}

/// Whole figures without decimals (32 wavefronts), others to one.
fn num(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The traced space and direction a SASS memory instruction stands for (None: any space,
/// as a generic access resolves at run time).
fn space_of(kind: MemKind) -> Option<(Option<Space>, AccessKind)> {
    use AccessKind::{Load, Store};
    Some(match kind {
        MemKind::SharedLoad => (Some(Space::Shared), Load),
        MemKind::SharedMatrix => (Some(Space::Shared), AccessKind::Matrix),
        MemKind::SharedStore => (Some(Space::Shared), Store),
        MemKind::GlobalLoad => (Some(Space::Global), Load),
        MemKind::GlobalStore => (Some(Space::Global), Store),
        MemKind::LocalLoad => (Some(Space::Local), Load),
        MemKind::LocalStore => (Some(Space::Local), Store),
        MemKind::Constant => (Some(Space::Constant), Load),
        MemKind::Texture => (Some(Space::Texture), Load),
        MemKind::GenericLoad => (None, Load),
        MemKind::GenericStore => (None, Store),
        // An atomic of any space (`ATOMS`, `ATOMG`, `REDG`, generic `ATOM`).
        MemKind::Atomic => (None, AccessKind::Atomic),
        // A copy's figure is its global read's: sectors per request.
        MemKind::GlobalToShared => (Some(Space::Global), AccessKind::AsyncCopy),
        MemKind::BulkCopy => (Some(Space::Global), AccessKind::BulkCopy),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(line: u32, requests: u64, wavefronts: u64) -> InstructionSummary {
        serde_json::from_value(serde_json::json!({
            "id": 0, "space": "shared", "kind": "load", "op": "ld.shared.f32",
            "ptx_line": 1, "source_line": line, "width": 4, "requests": requests,
            "wavefronts": wavefronts, "ideal_wavefronts": requests, "sectors": 0,
            "lines": 0, "bytes_used": 0, "distinct": 0, "local_bytes": 0, "sample": null
        }))
        .unwrap()
    }

    #[test]
    fn a_line_reads_its_traced_cost_per_request_and_other_lines_nothing() {
        let t = [shared(30, 10, 320), shared(31, 10, 10)];
        let f = line_figure(&t, 30, MemKind::SharedLoad).unwrap();
        assert_eq!(f.text, "32 wavefronts/request (ideal 1)");
        assert_eq!(f.cost, 32.0);
        assert!(
            line_figure(&t, 30, MemKind::SharedStore).is_none(),
            "no store there"
        );
        assert!(line_figure(&t, 30, MemKind::GlobalLoad).is_none());
        assert!(line_figure(&t, 29, MemKind::SharedLoad).is_none());
        let g = line_figure(&t, 31, MemKind::GenericLoad).unwrap();
        assert_eq!(
            g.text, "1 wavefronts/request (ideal 1)",
            "generic: any space"
        );
        assert_eq!(f.full(), f.text, "no lanes counted in this recording");
        let mut counted = shared(8, 4, 4);
        counted.lanes = 4 * 16;
        let c = line_figure(&[counted], 8, MemKind::SharedLoad).unwrap();
        assert_eq!(c.full(), "1 wavefronts/request (ideal 1) · 16 lanes");
        let half = [shared(7, 2, 3)];
        let h = line_figure(&half, 7, MemKind::SharedLoad).unwrap();
        assert_eq!(h.text, "1.5 wavefronts/request (ideal 1)");
    }

    #[test]
    fn a_line_of_thrown_away_loads_says_so_and_an_ldmatrix_line_has_its_figure() {
        let mut thrown = shared(26, 4, 4);
        thrown.unused = true;
        let f = line_figure(&[thrown.clone()], 26, MemKind::SharedLoad).unwrap();
        assert_eq!(f.text, "1 wavefronts/request (ideal 1) · values never used");
        let kept = shared(26, 12, 12);
        let f = line_figure(&[thrown, kept], 26, MemKind::SharedLoad).unwrap();
        assert_eq!(
            f.text,
            "1 wavefronts/request (ideal 1) · 25% of values never used"
        );
        let mut matrix = shared(62, 10, 320);
        matrix.kind = AccessKind::Matrix;
        matrix.ideal_wavefronts = 40;
        let m = line_figure(&[matrix.clone()], 62, MemKind::SharedMatrix).unwrap();
        assert_eq!(m.text, "32 wavefronts/request (ideal 4)");
        assert!(line_figure(&[matrix], 62, MemKind::SharedLoad).is_none());
    }
}
