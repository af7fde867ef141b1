//! `gpulab sass` and `gpulab diff`: what the hardware runs, and why two variants differ.

use super::say::{say, say_part};
use super::{find_lesson, open_course};
use crate::analysis::sass::{self, Listing, MemKind};
use crate::analysis::sass_diff::{self, Rows};
use crate::analysis::sass_figures::{LineFigure, line_figure};
use crate::course::bundle::CourseRoot;
use crate::model::access::InstructionSummary;
use crate::model::results::{DeviceInfo, LessonResult, Source, VariantResult};
use crate::model::target::{Gpus, Target, target};
use crate::model::{Lesson, Variant};
use crate::session::client::{NoListing, WorkerClient};
use crate::session::fold;
use crate::session::recording::{self, Recording};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::json;
use std::collections::BTreeMap;

/// Where `gpulab sass` and `gpulab diff` build `lesson`'s kernels, asking `client`'s worker
/// what GPU `device` is only where the recording does not say (`sass_target`).
fn target_of(
    root: &CourseRoot,
    lesson: &Lesson,
    device: &Result<u32>,
    client: &mut WorkerClient,
) -> Result<Target> {
    let rec = recording::newest(&root.recordings());
    sass_target(lesson, rec.as_ref(), device, |d| {
        Ok(fold::hello(client, d)?.device)
    })
}

/// Where the SASS of `lesson` is built, as the lab's code view builds it (`model::target`,
/// `App::sass_target`): for the GPU the recording's figures were measured on (so the SASS
/// sits beside figures of the same code), else for the GPU at `device` (`--device`), which
/// `here` asks the worker about only then (it opens the GPU), else for the lab's default;
/// never below what the lesson requires. `device` is an error only where it is used.
pub(crate) fn sass_target(
    lesson: &Lesson,
    rec: Option<&Recording>,
    device: &Result<u32>,
    here: impl FnOnce(u32) -> Result<Option<DeviceInfo>>,
) -> Result<Target> {
    let shown = rec.and_then(|r| r.replay(lesson)).and_then(|r| r.device);
    let (named, here) = match &shown {
        Some(_) => (device.as_ref().ok().copied(), None),
        None => {
            let d = *device.as_ref().map_err(|e| anyhow!("{e:#}"))?;
            (Some(d), here(d)?)
        }
    };
    let gpus = Gpus {
        named,
        shown: shown.as_ref(),
        here: here.as_ref(),
        arch: None,
    };
    Ok(target(Some(lesson), &gpus))
}

fn variant<'a>(lesson: &'a Lesson, name: &str) -> Result<&'a Variant> {
    let found = lesson.variants.iter().find(|v| v.name == name);
    if let Some(v) = found.filter(|v| v.transfer.is_some()) {
        bail!(
            "`{}` in {} is a copy between the host and the GPU (`transfer:`), not a kernel: \
             it has no SASS",
            v.name,
            lesson.id
        );
    }
    found.ok_or_else(|| {
        let names: Vec<&str> = lesson.variants.iter().map(|v| v.name.as_str()).collect();
        anyhow!(
            "no variant '{name}' in {}; its variants are: {}",
            lesson.id,
            names.join(", ")
        )
    })
}

fn listing(client: &mut WorkerClient, lesson: &Lesson, v: &Variant, arch: &str) -> Result<Listing> {
    let text = match client.sass(lesson, &v.name, arch) {
        Ok(text) => text,
        Err(NoListing::Worker(failure)) => return Err(failure.into()),
        Err(why) => bail!("{}: {why}", v.name),
    };
    let mut all = sass::parse(&text);
    let at = all.iter().position(|l| l.kernel == v.kernel).unwrap_or(0);
    (at < all.len())
        .then(|| all.swap_remove(at))
        .with_context(|| format!("{}: nvdisasm listed no kernel", v.name))
}

pub fn cmd_sass(
    root: &CourseRoot,
    device: &Result<u32>,
    lesson: &str,
    name: &str,
    json: bool,
) -> Result<i32> {
    let course = open_course(root)?;
    let lesson = find_lesson(&course, lesson)?;
    let v = variant(lesson, name)?;
    let mut client = WorkerClient::new();
    let arch = target_of(root, lesson, device, &mut client)?.arch;
    let l = listing(&mut client, lesson, v, &arch)?;
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "lesson": lesson.id, "variant": v.name, "arch": arch, "kernel": l.kernel,
                "instructions": l.instructions, "mix": sass::mix(&l),
                "memory": annotated(&l, &traced_of(root, lesson, &v.name).0).iter().map(|(line, kind, bits, n, f)| json!({
                    "line": line, "kind": kind, "bits": bits, "count": n,
                    "traced": f.as_ref().map(|f| &f.text), "note": f.as_ref().and_then(|f| f.note.as_ref()),
                    "lanes": f.as_ref().and_then(|f| f.lanes),
                })).collect::<Vec<_>>(),
            }))?
        );
        return Ok(0);
    }
    say!(
        "{} · {} · SASS for {arch} (nvdisasm of the CUBIN a run loads)",
        lesson.id,
        v.name
    );
    let (traced, from) = traced_of(root, lesson, &v.name);
    say!("traced figures: {from}");
    say!("\nmemory instructions by source line, the costliest first:");
    let src: Vec<&str> = v.source.lines().collect();
    for (line, kind, bits, n, fig) in annotated(&l, &traced) {
        let text = src
            .get(line.wrapping_sub(1) as usize)
            .map_or("", |s| s.trim());
        let figure = fig.as_ref().map_or(String::new(), |f| f.full());
        say!(
            "  line {line:>4}  {:<22} {bits:>3}-bit x{n:<3} {figure:<38} {text}",
            kind.word()
        );
        if let Some(note) = fig.and_then(|f| f.note) {
            say!("             {note}");
        }
    }
    say!("\ninstruction mix ({} in all):", l.instructions.len());
    say!("  {}", mix_words(&sass::mix(&l)));
    Ok(0)
}

/// The recorded trace of `variant` (the per-instruction figures) and where it came from.
fn traced_of(
    root: &CourseRoot,
    lesson: &Lesson,
    variant: &str,
) -> (Vec<InstructionSummary>, String) {
    let rec = recording::newest(&root.recordings()).and_then(|r| r.replay(lesson));
    let Some(r) = rec else {
        return (Vec::new(), "none (no recording of this lesson)".into());
    };
    let on = r
        .device
        .as_ref()
        .map_or("?".to_string(), |d| d.name.clone());
    let traced = (r.variants.iter())
        .find(|x| x.name == variant)
        .and_then(|x| x.memory.as_ref())
        .map(|m| m.instructions.clone())
        .unwrap_or_default();
    match traced.is_empty() {
        true => (
            traced,
            format!("none (the recording from {on} has no trace of {variant})"),
        ),
        false => (traced, format!("recorded on {on}")),
    }
}

type Annotated = (u32, MemKind, u32, u32, Option<LineFigure>);

/// Each (line, kind, width) of memory instructions with its count and traced figure, the
/// costliest first, then in line order.
fn annotated(l: &Listing, traced: &[InstructionSummary]) -> Vec<Annotated> {
    let mut rows: Vec<Annotated> = (sass::memory_by_line(l).into_iter())
        .map(|((line, kind, bits), n)| (line, kind, bits, n, line_figure(traced, line, kind)))
        .collect();
    let cost = |r: &Annotated| r.4.as_ref().map_or(0.0, |f| f.cost);
    rows.sort_by(|a, b| cost(b).total_cmp(&cost(a)).then(a.0.cmp(&b.0)));
    rows
}

/// The mix, most frequent first.
fn mix_words(m: &BTreeMap<String, u32>) -> String {
    let mut v: Vec<(&String, &u32)> = m.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    v.iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn cmd_diff(
    root: &CourseRoot,
    device: &Result<u32>,
    lesson: &str,
    names: [&str; 2],
    json: bool,
) -> Result<i32> {
    let course = open_course(root)?;
    let lesson = find_lesson(&course, lesson)?;
    let vs = [variant(lesson, names[0])?, variant(lesson, names[1])?];
    if vs[0].name == vs[1].name {
        bail!("diff needs two different variants");
    }
    let mut client = WorkerClient::new();
    let arch = target_of(root, lesson, device, &mut client)?.arch;
    let mut compiled = fold::blank_result(lesson, Source::Live, None);
    fold::compile_lesson(&mut client, lesson, &arch, &mut compiled, |_| {})?;
    let ls = [
        listing(&mut client, lesson, vs[0], &arch)?,
        listing(&mut client, lesson, vs[1], &arch)?,
    ];
    let recorded = recording::newest(&root.recordings()).and_then(|r| r.replay(lesson));
    let report = Diff::new(&vs, &ls, &compiled, recorded.as_ref());
    if json {
        say!(
            "{}",
            serde_json::to_string_pretty(&report.json(lesson, &arch))?
        );
    } else {
        say_part!("{}", report.text(lesson, &arch));
    }
    Ok(0)
}

/// Two variants side by side: rows of (what, a, b), only where something is known.
struct Diff {
    names: [String; 2],
    rows: Rows,
    changed_memory: Vec<(u32, MemKind, u32, u32, u32)>,
    recorded_on: Option<String>,
}

impl Diff {
    fn new(
        vs: &[&Variant; 2],
        ls: &[Listing; 2],
        compiled: &LessonResult,
        rec: Option<&LessonResult>,
    ) -> Diff {
        fn find<'r>(r: &'r LessonResult, n: &str) -> Option<&'r VariantResult> {
            r.variants.iter().find(|v| v.name == n)
        }
        let mut rows =
            sass_diff::report_rows([find(compiled, &vs[0].name), find(compiled, &vs[1].name)]);
        sass_diff::mix_rows(&mut rows, [&ls[0], &ls[1]]);
        let recorded_on = rec.and_then(|r| r.device.as_ref()).map(|d| d.name.clone());
        if let Some(r) = rec {
            let rv = [find(r, &vs[0].name), find(r, &vs[1].name)];
            sass_diff::traced_rows(&mut rows, rv, "recorded");
        }
        Diff {
            names: [vs[0].name.clone(), vs[1].name.clone()],
            rows,
            changed_memory: sass_diff::changed_memory(&ls[0], &ls[1]),
            recorded_on,
        }
    }

    fn text(&self, lesson: &Lesson, arch: &str) -> String {
        let mut out = format!(
            "{} · {} against {} · {arch}\n\n",
            lesson.id, self.names[0], self.names[1]
        );
        let w = self.names[0].len().max(12);
        out.push_str(&format!(
            "{:<30} {:>w$}  {}\n",
            "", self.names[0], self.names[1]
        ));
        for (what, a, b) in &self.rows {
            out.push_str(&format!("{what:<30} {a:>w$}  {b}\n"));
        }
        out.push_str(
            "\nmemory instructions that changed (source line, kind, width: count in each):\n",
        );
        if self.changed_memory.is_empty() {
            out.push_str("  none\n");
        }
        for (line, kind, bits, a, b) in &self.changed_memory {
            out.push_str(&format!(
                "  line {line:>4}  {:<22} {bits:>3}-bit  {a} -> {b}\n",
                kind.word()
            ));
        }
        match &self.recorded_on {
            Some(d) => out.push_str(&format!("\ntraced figures and times: recorded on {d}\n")),
            None => out.push_str("\ntraced figures and times: no recording of this lesson\n"),
        }
        out
    }

    fn json(&self, lesson: &Lesson, arch: &str) -> serde_json::Value {
        json!({
            "lesson": lesson.id, "a": self.names[0], "b": self.names[1], "arch": arch,
            "rows": self.rows.iter().map(|(w, a, b)| json!({"what": w.trim(), "a": a, "b": b})).collect::<Vec<_>>(),
            "memory_changed": self.changed_memory.iter().map(|(l, k, bits, a, b)| json!({"line": l, "kind": k, "bits": bits, "a": a, "b": b})).collect::<Vec<_>>(),
            "recorded_on": self.recorded_on,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fold::Capabilities;
    use crate::session::progress::Progress;
    use crate::ui::App;

    fn gpu(name: &str, cc: &str) -> DeviceInfo {
        DeviceInfo {
            name: name.into(),
            cc: cc.into(),
            ..Default::default()
        }
    }

    /// The target the lab's code view picks for `lesson` with recording `rec`, on a
    /// machine whose GPU `device` is `here`.
    fn in_the_lab(
        lesson: &Lesson,
        rec: Option<&Recording>,
        device: u32,
        here: &DeviceInfo,
    ) -> Target {
        let mut app = App::new(vec![lesson.clone()], rec.cloned(), Progress::default());
        app.runs.set_device(device);
        app.runs.set_caps(Some(Capabilities {
            device: Some(here.clone()),
            nvrtc: Some("13.0".into()),
            ..Default::default()
        }));
        app.sass_target()
    }

    /// What `gpulab sass --device N` picks for the same, the worker saying `here`.
    fn on_the_command_line(
        lesson: &Lesson,
        rec: Option<&Recording>,
        device: u32,
        here: &DeviceInfo,
    ) -> Target {
        sass_target(lesson, rec, &Ok(device), |d| {
            assert_eq!(d, device, "the GPU named is the one asked about");
            Ok(Some(here.clone()))
        })
        .unwrap()
    }

    /// `gpulab sass` and the lab's code view build for one GPU and one architecture, given
    /// the same recording, the same `--device` and the same GPU there: the recording's GPU
    /// where it has the lesson, else this machine's (where `gpulab sass` built for the
    /// default, sm_90, while the lab built for this GPU), never below what the lesson
    /// requires.
    #[test]
    fn the_command_line_and_the_lab_pick_the_same_gpu_and_arch() {
        let lesson = crate::model::builder::LessonBuilder::new("x")
            .variant("a")
            .build();
        let mut clusters = lesson.clone();
        clusters.id = "clusters".into();
        clusters.requires.cc = Some((9, 0));
        let a100 = gpu("A100", "8.0");
        let rtx = gpu("RTX A6000", "8.6");
        let rec = |l: &Lesson| {
            let result = crate::session::fold::blank_result(l, Source::Live, None);
            Recording::new(a100.clone(), Default::default(), vec![result])
        };
        let cases = [
            (&lesson, Some(rec(&lesson)), "sm_80"),
            (&lesson, None, "sm_86"),
            (&clusters, Some(rec(&clusters)), "sm_90"),
            (&clusters, None, "sm_90"),
        ];
        for (l, r, arch) in &cases {
            for device in [0, 2] {
                let lab = in_the_lab(l, r.as_ref(), device, &rtx);
                let cli = on_the_command_line(l, r.as_ref(), device, &rtx);
                assert_eq!(lab, cli, "{} recorded: {}", l.id, r.is_some());
                let want = Target {
                    device,
                    arch: arch.to_string(),
                };
                assert_eq!(cli, want, "{} recorded: {}", l.id, r.is_some());
            }
        }
    }

    /// Where the recording says what to build for, `--device` is not needed: a bad one is
    /// no error there, and no GPU is asked about.
    #[test]
    fn a_recorded_lesson_asks_no_gpu() {
        let lesson = crate::model::builder::LessonBuilder::new("x")
            .variant("a")
            .build();
        let result = crate::session::fold::blank_result(&lesson, Source::Live, None);
        let rec = Recording::new(gpu("A100", "8.0"), Default::default(), vec![result]);
        let bad: Result<u32> = Err(anyhow!("GPULAB_DEVICE (or --device) is `xyz`"));
        let t = sass_target(&lesson, Some(&rec), &bad, |_| panic!("no GPU is asked")).unwrap();
        assert_eq!(t.arch, "sm_80");
        let err = sass_target(&lesson, None, &bad, |_| panic!("no GPU is asked"));
        assert!(err.unwrap_err().to_string().contains("xyz"));
    }
}
