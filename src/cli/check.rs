//! `gpulab check`: validate lessons, and compile their kernels when the worker has NVRTC;
//! warn where a lesson asks more of a GPU than the one its recording was made on has.

use super::say::say;
use crate::analysis::limits;
use crate::course::bundle::CourseRoot;
use crate::model::protocol::{FALLBACK_ARCH, PIP_HINT};
use crate::model::results::{DeviceInfo, Source};
use crate::model::target::{Gpus, target};
use crate::model::{Lesson, Reference};
use crate::session::client::WorkerClient;
use crate::session::fold;
use crate::session::recording;
use anyhow::Result;
use std::path::{Path, PathBuf};

pub fn cmd_check(root: &CourseRoot, paths: &[PathBuf]) -> Result<i32> {
    let (lessons, errors) = if paths.is_empty() {
        crate::course::load_course(root)
    } else {
        crate::course::load::check_paths(paths)
    };
    for e in &errors {
        say!("{e}");
    }
    // Launches no GPU of the lesson's architecture would make: problems, not warnings.
    let refused = crate::course::launch_limits::launch_problems(root, &lessons);
    for e in &refused {
        say!("{e}");
    }
    warn_limits(&lessons, &recorded_device(root, paths));
    let compile_errors = if lessons.is_empty() {
        0
    } else {
        compile_all(&lessons)?
    };
    let problems = errors.len() + refused.len() + compile_errors;
    if problems == 0 {
        say!("{} lesson(s) OK", lessons.len());
        Ok(0)
    } else {
        say!("{problems} problem(s)");
        Ok(1)
    }
}

/// The GPU the newest recording beside the lessons was made on; without one, the limits
/// of the architecture kernels are compiled for (its memory unknown).
fn recorded_device(root: &CourseRoot, paths: &[PathBuf]) -> (DeviceInfo, String) {
    let mut roots = vec![root.clone()];
    roots.extend(paths.iter().map(|p| CourseRoot::Dir(folder_of(p))));
    let rec = roots
        .iter()
        .rev()
        .find_map(|r| recording::newest(&r.recordings()));
    match rec {
        Some(r) => {
            let mut dev = r.device.clone();
            dev.total_mem = limits::total_mem(&dev);
            let on = format!("the {} it was recorded on", dev.name);
            (dev, on)
        }
        None => (
            DeviceInfo {
                name: FALLBACK_ARCH.into(),
                cc: "9.0".into(),
                regs_per_sm: 65536,
                smem_per_block_optin: 227 << 10,
                ..Default::default()
            },
            format!("{FALLBACK_ARCH}'s limits, no recording to compare with"),
        ),
    }
}

fn folder_of(p: &Path) -> PathBuf {
    if p.is_dir() {
        p.to_path_buf()
    } else {
        p.parent().map(Path::to_path_buf).unwrap_or_default()
    }
}

/// Warnings, not problems: the lesson may be meant for a larger GPU than the recording's.
/// A launch already refused for its architecture is not warned about again.
fn warn_limits(lessons: &[Lesson], (dev, on): &(DeviceInfo, String)) {
    for l in lessons {
        let arch = target(Some(l), &Gpus::default()).arch;
        let limit = limits::smem_per_block(&arch).unwrap_or(u32::MAX);
        let refused: Vec<String> = (l.variants.iter())
            .filter(|v| v.smem > limit)
            .map(|v| format!("variant {}: the launch asks", v.name))
            .collect();
        for w in limits::warnings(l, dev, on) {
            if !refused.iter().any(|r| w.starts_with(r)) {
                say!("warning: {}: {w}", l.file);
            }
        }
    }
}

/// Compile every variant in the worker, printing each failure once for all the variants
/// it affects; how many failures. Without NVRTC nothing is compiled, and the learner is
/// told how to get it.
fn compile_all(lessons: &[Lesson]) -> Result<usize> {
    let mut client = WorkerClient::new();
    if client.toolkit()?.nvrtc.is_err() {
        say!("NVRTC not found: kernels not compiled ({PIP_HINT})");
        return Ok(0);
    }
    let mut failed = 0;
    let with_exercises: Vec<Lesson> = lessons
        .iter()
        .flat_map(|l| {
            std::iter::once(l.clone())
                .chain(exercise_kernels(l))
                .chain(knob_kernels(l))
        })
        .collect();
    for l in &with_exercises {
        let mut result = fold::blank_result(l, Source::Live, None);
        // The default target: no GPU is asked about, so none says otherwise.
        let arch = target(Some(l), &Gpus::default()).arch;
        fold::compile_lesson(&mut client, l, &arch, &mut result, |_| {})?;
        let errors = result
            .variants
            .iter()
            .filter_map(|v| Some((v.name.as_str(), v.error.as_deref()?)));
        for (error, names) in group_errors(errors) {
            failed += 1;
            let which = if names.len() == 1 {
                "variant"
            } else {
                "variants"
            };
            say!("{} ({which} {}):\n{error}", l.file, names.join(", "));
        }
    }
    say!("compiled every variant with NVRTC for {FALLBACK_ARCH}");
    Ok(failed)
}

/// A lesson's exercises as variants of their own, the starter and the solution of each,
/// so that a starter that no longer compiles is found before a learner finds it.
fn exercise_kernels(l: &Lesson) -> Option<Lesson> {
    if l.exercises.is_empty() {
        return None;
    }
    let mut x = l.clone();
    x.variants = l
        .exercises
        .iter()
        .flat_map(|e| {
            let mut starter = e.yours.clone();
            starter.name = format!("{} starter", e.id);
            starter.source = e.starter.clone();
            starter.source_path = e.starter_path.clone();
            let mut solution = e.yours.clone();
            solution.name = format!("{} solution", e.id);
            solution.source_path = e.solution_path.clone();
            [starter, solution]
        })
        .collect();
    x.expect.clear();
    x.sweeps.clear();
    x.exercises.clear();
    if matches!(x.reference, Reference::Variant(_)) {
        x.reference = Reference::Variant(0);
    }
    Some(x)
}

/// Every value of every knob (beside the variant checked against), so that a value that
/// does not compile is found before a learner turns to it.
fn knob_kernels(l: &Lesson) -> Vec<Lesson> {
    l.knobs
        .iter()
        .map(|k| crate::session::knobs::knob_lesson(l, &k.settings.iter().collect::<Vec<_>>()))
        .collect()
}

/// Identical errors together, in the order first seen, each with the variants it hit.
fn group_errors<'a>(
    errors: impl Iterator<Item = (&'a str, &'a str)>,
) -> Vec<(&'a str, Vec<&'a str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for (name, error) in errors {
        match out.iter_mut().find(|(e, _)| *e == error) {
            Some((_, names)) => names.push(name),
            None => out.push((error, vec![name])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_error_is_said_once_with_every_variant_it_hit() {
        let errs = [
            ("a", "k.cu:1: error"),
            ("b", "k.cu:1: error"),
            ("c", "other"),
        ];
        let g = group_errors(errs.into_iter());
        assert_eq!(
            g,
            vec![("k.cu:1: error", vec!["a", "b"]), ("other", vec!["c"])]
        );
    }
}
