//! What a run's outputs should hold, and whether they do: the built-in references computed
//! on the host, and the NaN-aware comparison that decides "correct".

use super::hostdata::HostData;
use crate::model::{Reference, Tolerance};

/// `builtin: sgemm` computed here, for a run with no GPU (no cuBLAS): the product summed
/// in f64 and rounded once to f32, so the lesson's tolerance covers the GPU's own order of
/// summation. Meant for the small sizes a CPU run checks (`problem_cpu`).
pub fn sgemm_on_host(reference: &Reference, inputs: &[HostData]) -> Option<(usize, HostData)> {
    let Reference::Sgemm {
        a,
        b,
        to,
        rows,
        cols,
        depth,
    } = *reference
    else {
        return None;
    };
    let (HostData::F32(a), HostData::F32(b)) = (inputs.get(a)?, inputs.get(b)?) else {
        return None;
    };
    let (r, c, d) = (rows as usize, cols as usize, depth as usize);
    if a.len() < r * d || b.len() < d * c {
        return None;
    }
    let mut out = vec![0f32; r * c];
    for i in 0..r {
        let mut acc = vec![0f64; c];
        for k in 0..d {
            let x = f64::from(a[i * d + k]);
            for (j, s) in acc.iter_mut().enumerate() {
                *s += x * f64::from(b[k * c + j]);
            }
        }
        for (o, s) in out[i * c..(i + 1) * c].iter_mut().zip(acc) {
            *o = s as f32;
        }
    }
    Some((to, HostData::F32(out)))
}

/// The expected contents of `out` under a built-in reference, given the inputs.
/// `None` for a variant reference (its outputs come from the GPU).
pub fn builtin_expected(reference: &Reference, inputs: &[HostData]) -> Option<(usize, HostData)> {
    match *reference {
        // A variant's outputs, and cuBLAS's, come from the GPU.
        Reference::Variant(_) | Reference::Sgemm { .. } => None,
        Reference::Copy { from, to } => Some((to, inputs[from].clone())),
        Reference::Transpose {
            from,
            to,
            rows,
            cols,
        } => {
            let (r, c) = (rows as usize, cols as usize);
            fn tr<T: Copy>(v: &[T], r: usize, c: usize) -> Vec<T> {
                let mut out = Vec::with_capacity(r * c);
                for j in 0..c {
                    for i in 0..r {
                        out.push(v[i * c + j]);
                    }
                }
                out
            }
            let data = match &inputs[from] {
                HostData::F32(v) => HostData::F32(tr(v, r, c)),
                HostData::F64(v) => HostData::F64(tr(v, r, c)),
                HostData::I32(v) => HostData::I32(tr(v, r, c)),
                HostData::U32(v) => HostData::U32(tr(v, r, c)),
                HostData::U64(v) => HostData::U64(tr(v, r, c)),
            };
            Some((to, data))
        }
    }
}

/// Results of the same function computed in another order may differ in the last bits;
/// anything beyond the lesson's tolerance (`Tolerance::default()` unless it sets one) is a
/// different answer.
fn float_ok(got: f64, want: f64, tol: &Tolerance) -> bool {
    // NaN never passes: an unwritten (poisoned) output is NaN.
    if got.is_nan() || want.is_nan() {
        return false;
    }
    got == want || (got - want).abs() <= tol.abs + tol.rel * want.abs().max(got.abs())
}

/// An output that differs from what it should hold.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Mismatch {
    #[error("{name}: output of the wrong type or length")]
    Shape { name: String },
    /// The first wrong element, and how many are wrong.
    #[error("{first} ({bad} of {total} elements wrong)")]
    Values {
        first: String,
        bad: usize,
        total: usize,
    },
}

/// Compare an output with what it should hold; floats within `tol`.
pub fn compare(
    name: &str,
    got: &HostData,
    want: &HostData,
    tol: &Tolerance,
) -> Result<(), Mismatch> {
    let mut wrong = Wrong::default();
    let same_len = got.len() == want.len();
    match (got, want) {
        (HostData::F32(g), HostData::F32(w)) if same_len => wrong.scan(g, w, |a, b| {
            (
                float_ok(a as f64, b as f64, tol),
                a.to_bits() == 0xFFFF_FFFF,
            )
        }),
        (HostData::F64(g), HostData::F64(w)) if same_len => {
            wrong.scan(g, w, |a, b| (float_ok(a, b, tol), a.to_bits() == u64::MAX))
        }
        (HostData::I32(g), HostData::I32(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a as u32 == 0xDEAD_BEEF))
        }
        (HostData::U32(g), HostData::U32(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a == 0xDEAD_BEEF))
        }
        (HostData::U64(g), HostData::U64(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a == 0xDEAD_BEEF_DEAD_BEEF))
        }
        _ => {
            return Err(Mismatch::Shape {
                name: name.to_string(),
            });
        }
    }
    match wrong.first {
        None => Ok(()),
        Some((i, g, w, poisoned)) => {
            let why = if poisoned { " (never written)" } else { "" };
            Err(Mismatch::Values {
                first: format!("{name}[{i}] = {g}{why}, expected {w}"),
                bad: wrong.bad,
                total: got.len(),
            })
        }
    }
}

/// The verdict of a comparison made elsewhere (on the GPU, `worker::device_compare`), in
/// the words `compare` uses: `bad` of `total` elements wrong, the first at `i`, where the
/// output held `got` (that one element) and should hold `want[i]`.
pub fn mismatch_at(
    name: &str,
    i: usize,
    got: &HostData,
    want: &HostData,
    (bad, total): (usize, usize),
) -> Mismatch {
    let (g, poisoned) = match got {
        HostData::F32(v) => (v[0].to_string(), v[0].to_bits() == 0xFFFF_FFFF),
        HostData::F64(v) => (v[0].to_string(), v[0].to_bits() == u64::MAX),
        HostData::I32(v) => (v[0].to_string(), v[0] as u32 == 0xDEAD_BEEF),
        HostData::U32(v) => (v[0].to_string(), v[0] == 0xDEAD_BEEF),
        HostData::U64(v) => (v[0].to_string(), v[0] == 0xDEAD_BEEF_DEAD_BEEF),
    };
    let w = match want {
        HostData::F32(v) => v[i].to_string(),
        HostData::F64(v) => v[i].to_string(),
        HostData::I32(v) => v[i].to_string(),
        HostData::U32(v) => v[i].to_string(),
        HostData::U64(v) => v[i].to_string(),
    };
    let why = if poisoned { " (never written)" } else { "" };
    Mismatch::Values {
        first: format!("{name}[{i}] = {g}{why}, expected {w}"),
        bad,
        total,
    }
}

/// The wrong elements of one output: how many, and the first (index, got, expected, and
/// whether it still holds the poison).
#[derive(Default)]
struct Wrong {
    bad: usize,
    first: Option<(usize, String, String, bool)>,
}

/// One thread's share of a comparison: how many are wrong, and the first (index, got,
/// expected, poisoned).
type Part<T> = (usize, Option<(usize, T, T, bool)>);

/// Elements one thread compares at least: below this, a thread costs more than it saves.
const SCAN_CHUNK: usize = 1 << 20;

impl Wrong {
    /// `judge(got, expected)` says whether they agree and whether `got` is the poison.
    /// A large output (a GiB of a 16384² transpose) is compared on several threads: on one,
    /// the comparison alone took a third of a second of a learner's save.
    fn scan<T: Copy + ToString + Send + Sync>(
        &mut self,
        got: &[T],
        want: &[T],
        judge: impl Fn(T, T) -> (bool, bool) + Sync,
    ) {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(16));
        let chunk = got.len().div_ceil(threads).max(SCAN_CHUNK);
        let parts: Vec<Part<T>> = std::thread::scope(|s| {
            let handles: Vec<_> = (got.chunks(chunk).zip(want.chunks(chunk)).enumerate())
                .map(|(c, (g, w))| {
                    let judge = &judge;
                    s.spawn(move || {
                        let (mut bad, mut first) = (0, None);
                        for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
                            let (ok, poisoned) = judge(a, b);
                            if !ok {
                                bad += 1;
                                if first.is_none() {
                                    first = Some((c * chunk + i, a, b, poisoned));
                                }
                            }
                        }
                        (bad, first)
                    })
                })
                .collect();
            (handles.into_iter())
                .map(|h| h.join().expect("a comparison thread does not panic"))
                .collect()
        });
        for (bad, first) in parts {
            self.bad += bad;
            if self.first.is_none()
                && let Some((i, a, b, poisoned)) = first
            {
                self.first = Some((i, a.to_string(), b.to_string(), poisoned));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Buffer, ElemType, Init};
    use crate::worker::hostdata::generate;

    #[test]
    fn the_host_product_is_row_major_a_times_b() {
        let r = Reference::Sgemm {
            a: 0,
            b: 1,
            to: 2,
            rows: 2,
            cols: 2,
            depth: 3,
        };
        let a = HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = HostData::F32(vec![7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
        let (to, c) = sgemm_on_host(&r, &[a, b]).unwrap();
        assert_eq!(to, 2);
        assert_eq!(c, HostData::F32(vec![58.0, 64.0, 139.0, 154.0]));
        assert!(sgemm_on_host(&Reference::Variant(0), &[]).is_none());
    }
    #[test]
    fn poisoned_output_never_matches_even_itself() {
        let b = Buffer {
            name: "x".into(),
            ty: ElemType::F32,
            len: 1000,
            init: Init::Poison,
            gpu: 0,
            memory: Default::default(),
        };
        let p = generate(&b, 0);
        let err = compare("out", &p, &p, &Tolerance::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("never written"), "{err}");
        assert!(err.contains("1000 of 1000"), "{err}");
    }
    #[test]
    fn a_large_output_compared_on_threads_names_its_first_mismatch_and_counts_them_all() {
        // Past several chunks, so that more than one thread compares; the wrong elements
        // lie in a later chunk and an earlier one, the earlier one named.
        let n = 5 * SCAN_CHUNK + 17;
        let want = HostData::U32((0..n as u32).collect());
        let mut g: Vec<u32> = (0..n as u32).collect();
        let (late, early) = (4 * SCAN_CHUNK + 3, SCAN_CHUNK + 5);
        g[late] = 1;
        g[early] = 2;
        g[n - 1] = 0xDEAD_BEEF;
        let err = compare("out", &HostData::U32(g), &want, &Tolerance::default())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("out[{early}] = 2, expected {early}")),
            "{err}"
        );
        assert!(err.contains(&format!("3 of {n} elements wrong")), "{err}");
    }
    #[test]
    fn compare_reports_the_first_mismatch() {
        let want = HostData::F32(vec![1.0, 2.0, 3.0]);
        let got = HostData::F32(vec![1.0, 2.5, 3.0]);
        let err = compare("out", &got, &want, &Tolerance::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("out[1] = 2.5"), "{err}");
        assert!(compare("out", &want, &want, &Tolerance::default()).is_ok());
        let close = HostData::F32(vec![1.0, 2.0 + 1e-6, 3.0]);
        assert!(compare("out", &close, &want, &Tolerance::default()).is_ok());
    }
    #[test]
    fn a_lesson_tolerance_widens_or_narrows_the_float_check_and_nan_never_passes() {
        let want = HostData::F32(vec![1000.0, 2.0]);
        let got = HostData::F32(vec![1000.05, 2.0]);
        let loose = Tolerance {
            rel: 1e-4,
            abs: 0.0,
        };
        let tight = Tolerance {
            rel: 1e-6,
            abs: 1e-6,
        };
        assert!(compare("out", &got, &want, &loose).is_ok());
        let err = compare("out", &got, &want, &tight).unwrap_err().to_string();
        assert!(err.starts_with("out[0] = 1000.05"), "{err}");
        let huge = Tolerance {
            rel: 1e30,
            abs: 1e30,
        };
        let nan = HostData::F32(vec![f32::NAN, 2.0]);
        assert!(compare("out", &nan, &want, &huge).is_err());
        assert!(compare("out", &want, &nan, &huge).is_err());
    }
    #[test]
    fn transpose_reference_swaps_rows_and_columns() {
        let input = HostData::U32((0..6).collect());
        let r = Reference::Transpose {
            from: 0,
            to: 1,
            rows: 2,
            cols: 3,
        };
        let (to, data) = builtin_expected(&r, &[input]).unwrap();
        assert_eq!(to, 1);
        assert_eq!(data, HostData::U32(vec![0, 3, 1, 4, 2, 5]));
    }
}
