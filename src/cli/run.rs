//! `gpulab run`: one lesson, live or from the recording, as a table or JSON.

use super::{RunArgs, find_lesson, load_course};
use crate::course::bundle::CourseRoot;
use crate::model::protocol::RunOptions;
use crate::session::{recording, source};
use anyhow::{Result, bail};

pub fn cmd_run(root: &CourseRoot, device: u32, a: &RunArgs) -> Result<i32> {
    if a.memcheck {
        return super::memcheck::cmd_memcheck(root, device, a);
    }
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
    let rec = recording::newest(&root.recordings());
    let mut result = source::figures(rec.as_ref(), lesson, device, &options, a.replay, |m| {
        eprintln!("· {m}")
    })?;
    if !a.variants.is_empty() {
        result.variants.retain(|v| a.variants.contains(&v.name));
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", super::report::text_report(lesson, &result));
    }
    let failed = result.variants.iter().any(|v| v.correct == Some(false));
    Ok(if failed { 1 } else { 0 })
}
