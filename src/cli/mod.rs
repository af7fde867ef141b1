//! The command line: one small function per subcommand. Names and JSON fields are a
//! contract (design.md): tests and scripts rely on them.

use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::protocol::{Reply, RunOptions};
use crate::model::results::{LessonResult, Source};
use crate::session::client::WorkerClient;
use crate::session::fold::{self, Capabilities};
use crate::session::recording::{self, Recording};
pub mod doctor;
pub mod report;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "gpulab",
    version,
    about = "A terminal lab for CUDA memory spaces"
)]
pub struct Cli {
    /// Use the lessons in DIR (kernels are found beside it) instead of the bundled course.
    #[arg(long, global = true, value_name = "DIR")]
    pub lessons: Option<PathBuf>,
    /// The GPU to use.
    #[arg(long, global = true, default_value_t = 0, value_name = "N")]
    pub device: u32,
    #[command(subcommand)]
    pub command: Option<Cmd>,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    pub lesson: String,
    /// Only these variants (repeatable).
    #[arg(long = "variant", value_name = "V")]
    pub variants: Vec<String>,
    #[arg(long)]
    pub json: bool,
    /// Show the recording instead of running live.
    #[arg(long)]
    pub replay: bool,
    /// Skip the memory trace (faster).
    #[arg(long)]
    pub no_trace: bool,
    /// Skip timing: compile, check (one launch per variant) and trace only.
    #[arg(long)]
    pub no_time: bool,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Lessons in course order.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Run a lesson's variants and print the figures.
    Run(RunArgs),
    /// Validate lessons (and compile their kernels when NVRTC is present).
    Check { paths: Vec<PathBuf> },
    /// The lesson screen as plain text (from the recording).
    Render {
        lesson: String,
        #[arg(long, default_value_t = 120)]
        width: u16,
        #[arg(long, default_value_t = 40)]
        height: u16,
        /// Which prose page to show (from 1).
        #[arg(long, default_value_t = 1)]
        page: usize,
    },
    /// Run every lesson live and write a recording.
    Record {
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// What this machine has, and how to get what is missing.
    Doctor,
    #[command(hide = true)]
    Worker,
}

pub fn load_course(root: &CourseRoot) -> Result<Vec<Lesson>> {
    let (lessons, errors) = crate::course::load_course(root);
    if !errors.is_empty() {
        for e in &errors {
            eprintln!("{e}");
        }
        bail!(
            "{} problem(s) in the lessons (run `gpulab check` for all of them)",
            errors.len()
        );
    }
    Ok(lessons)
}

pub fn find_lesson<'a>(lessons: &'a [Lesson], id: &str) -> Result<&'a Lesson> {
    lessons
        .iter()
        .find(|l| l.id == id || format!("{:02}", l.order) == id)
        .with_context(|| {
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            format!("no lesson '{id}'; the lessons are: {}", ids.join(", "))
        })
}

pub fn cmd_list(root: &CourseRoot, json: bool) -> Result<()> {
    let lessons = load_course(root)?;
    if json {
        let items: Vec<_> = lessons
            .iter()
            .map(|l| {
                serde_json::json!({
                    "id": l.id, "order": l.order, "title": l.title, "space": l.space,
                    "variants": l.variants.iter().map(|v| &v.name).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&items)?);
    } else {
        for l in &lessons {
            println!(
                "{:02}  {:<20} {:<10} {}",
                l.order,
                l.id,
                l.space.label().to_lowercase(),
                l.title
            );
        }
    }
    Ok(())
}

/// Live figures when there is a GPU; otherwise the recording, with compile reports made
/// live when NVRTC is here.
pub fn result_for(
    root: &CourseRoot,
    lesson: &Lesson,
    device: u32,
    options: &RunOptions,
    replay: bool,
    mut progress: impl FnMut(&str),
) -> Result<LessonResult> {
    let rec = recording::newest(&root.recordings());
    let replayed = || {
        rec.as_ref()
            .and_then(|r| r.replay(lesson))
            .unwrap_or_else(|| fold::blank_result(lesson, Source::Recorded, None))
    };
    if replay {
        let mut r = replayed();
        fold::evaluate_claims(lesson, &mut r);
        return Ok(r);
    }
    let mut client = WorkerClient::new();
    let caps: Capabilities = fold::hello(&mut client, device)?;
    if let Some(dev) = caps.device.clone() {
        let mut result = fold::blank_result(lesson, Source::Live, Some(dev));
        let mut count = 0usize;
        let out = fold::run_lesson(&mut client, lesson, options, &mut result, |r| match r {
            Reply::Stage { variant, stage } => {
                count = 0;
                progress(&format!("{variant} {stage}"));
            }
            Reply::Sample { variant, .. } => {
                count += 1;
                if count.is_multiple_of(10) {
                    progress(&format!("{variant} timing: {count} runs"));
                }
            }
            _ => {}
        });
        // What was measured stands; the failure is already marked on its variant.
        if let Err(f) = out {
            progress(&format!("error: {f}"));
        }
        return Ok(result);
    }
    let why = caps.no_gpu.clone().unwrap_or_default();
    let mut result = replayed();
    match &rec {
        Some(r) => progress(&format!("no GPU here ({why}): figures {}", r.label())),
        None => progress(&format!("no GPU here ({why}) and no recording")),
    }
    if caps.nvrtc.is_some() {
        let arch = result
            .device
            .as_ref()
            .map(|d| d.arch())
            .unwrap_or_else(|| "sm_90".into());
        progress(&format!(
            "compiling with NVRTC for {arch} (live compile reports)"
        ));
        fold::compile_lesson(&mut client, lesson, &arch, &mut result, |_| {})?;
    }
    fold::evaluate_claims(lesson, &mut result);
    Ok(result)
}

pub fn cmd_run(root: &CourseRoot, device: u32, a: &RunArgs) -> Result<i32> {
    let lessons = load_course(root)?;
    let lesson = find_lesson(&lessons, &a.lesson)?;
    for v in &a.variants {
        if lesson.variant(v).is_none() {
            let names: Vec<&str> = lesson.variants.iter().map(|v| v.name.as_str()).collect();
            bail!(
                "lesson {} has no variant '{v}'; it has: {}",
                lesson.id,
                names.join(", ")
            );
        }
    }
    let options = RunOptions {
        variants: a.variants.clone(),
        trace: !a.no_trace,
        time: !a.no_time,
        ..RunOptions::default()
    };
    let mut result = result_for(root, lesson, device, &options, a.replay, |m| {
        eprintln!("· {m}")
    })?;
    if !a.variants.is_empty() {
        result.variants.retain(|v| a.variants.contains(&v.name));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", crate::cli::report::text_report(lesson, &result));
    }
    let failed = result.variants.iter().any(|v| v.correct == Some(false));
    Ok(if failed { 1 } else { 0 })
}

pub fn cmd_check(root: &CourseRoot, paths: &[PathBuf]) -> Result<i32> {
    let (lessons, errors) = if paths.is_empty() {
        crate::course::load_course(root)
    } else {
        let mut all = Vec::new();
        let mut errs = Vec::new();
        for p in paths {
            let files: Vec<PathBuf> = if p.is_dir() {
                let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                    .with_context(|| format!("reading {}", p.display()))?
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                    .collect();
                v.sort();
                v
            } else {
                vec![p.clone()]
            };
            for f in files {
                let text = std::fs::read_to_string(&f)
                    .with_context(|| format!("reading {}", f.display()))?;
                let dir = f
                    .parent()
                    .map(|d| d.to_path_buf())
                    .unwrap_or_else(|| PathBuf::from("."));
                match crate::course::load_file(
                    &CourseRoot::Dir(dir),
                    &f.display().to_string(),
                    &text,
                ) {
                    Ok(l) => all.push(l),
                    Err(e) => errs.extend(e),
                }
            }
        }
        (all, errs)
    };
    for e in &errors {
        println!("{e}");
    }
    let mut compile_errors = 0;
    if crate::cuda::discover::ensure_nvrtc().is_ok() && !lessons.is_empty() {
        let mut client = WorkerClient::new();
        for l in &lessons {
            let mut result = fold::blank_result(l, Source::Live, None);
            fold::compile_lesson(&mut client, l, "sm_90", &mut result, |_| {})?;
            for v in &result.variants {
                if let Some(e) = &v.error {
                    compile_errors += 1;
                    println!("{} (variant {}):\n{e}", l.file, v.name);
                }
            }
        }
        println!("compiled every variant with NVRTC for sm_90");
    } else if !lessons.is_empty() {
        println!(
            "NVRTC not found: kernels not compiled ({})",
            crate::cuda::discover::PIP_HINT
        );
    }
    let problems = errors.len() + compile_errors;
    if problems == 0 {
        println!("{} lesson(s) OK", lessons.len());
        Ok(0)
    } else {
        println!("{problems} problem(s)");
        Ok(1)
    }
}

pub fn cmd_render(root: &CourseRoot, id: &str, width: u16, height: u16, page: usize) -> Result<()> {
    let lessons = load_course(root)?;
    let idx = lessons
        .iter()
        .position(|l| l.id == id)
        .with_context(|| find_lesson(&lessons, id).err().unwrap())?;
    let r = result_for(root, &lessons[idx], 0, &RunOptions::default(), true, |_| {})?;
    print!(
        "{}",
        crate::ui::render_text(
            &lessons,
            idx,
            Some(r),
            page.saturating_sub(1),
            width,
            height
        )
    );
    Ok(())
}

pub fn cmd_record(root: &CourseRoot, device: u32, out: Option<PathBuf>) -> Result<i32> {
    let lessons = load_course(root)?;
    let mut client = WorkerClient::new();
    let caps = fold::hello(&mut client, device)?;
    let Some(dev) = caps.device.clone() else {
        bail!(
            "recording needs a GPU: {}",
            caps.no_gpu.unwrap_or_else(|| "none found".into())
        );
    };
    let mut results = Vec::new();
    let mut peak = Default::default();
    let mut failed = 0;
    for l in &lessons {
        eprintln!("· {} ({} variants)", l.id, l.variants.len());
        let mut result = fold::blank_result(l, Source::Live, Some(dev.clone()));
        let res = fold::run_lesson(&mut client, l, &RunOptions::default(), &mut result, |r| {
            if let Reply::Stage { variant, stage } = r {
                eprintln!("  {variant} {stage}");
            }
        });
        if let Err(e) = res {
            eprintln!("  error: {e}");
            failed += 1;
        }
        if result.peak.copy_gbps.is_some() {
            peak = result.peak.clone();
        }
        for c in &result.expect {
            let mark = match c.holds {
                Some(true) => "✓",
                Some(false) => "✗",
                None => "?",
            };
            eprintln!("  {mark} {}  {}", c.claim, c.detail);
        }
        results.push(result);
    }
    let rec = Recording::new(dev.clone(), peak, results);
    let path = out.unwrap_or_else(|| recording::default_path(&root.recordings_dir(), &dev));
    rec.write(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    eprintln!("wrote {} ({})", path.display(), rec.label());
    Ok(if failed > 0 { 1 } else { 0 })
}

pub fn cmd_doctor(device: u32) -> Result<()> {
    print!("{}", crate::cli::doctor::report(device));
    Ok(())
}
