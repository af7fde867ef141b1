//! `gpulab ex check-many`: many learners' files checked by one process, one request a line.
//! The course is loaded once and one worker keeps its GPU context, its copy peak and its
//! compiled variants between checks, as `ex watch` does between saves: a table of hundreds
//! of answers pays for a process, a context and a course once per lane, not once a file
//! (on an H200, 16 checks started at once each spent 2.1-2.7 s before their first stage,
//! against 0.64 s for one alone).

use super::ex::{Ctx, How};
use super::say::out;
use crate::session::client::WorkerClient;
use crate::session::workspace::Workspace;
use serde::Deserialize;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// One request: the exercise, the folder holding the learner's file (default: the
/// command's workspace), and how to check it, as `ex check`'s options say.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    id: String,
    #[serde(default)]
    workspace: Option<PathBuf>,
    #[serde(default)]
    fail_fast: bool,
    #[serde(default)]
    deciding: Option<String>,
}

/// Answer every request on stdin in turn; 0 once stdin ends (each request's verdict is in
/// its own `done` line).
pub fn check_many(
    cx: &mut Ctx,
    device: u32,
    cpu: bool,
    reuse: Option<&Path>,
    default_ws: &Workspace,
) -> anyhow::Result<i32> {
    let mut client = WorkerClient::new();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let done = match serde_json::from_str::<Request>(&line) {
            Err(e) => serde_json::json!({ "code": 2, "error": format!("bad request: {e}") }),
            Ok(r) => one(cx, &mut client, (device, cpu, reuse), &r, default_ws),
        };
        out(&format!("{}\n", serde_json::json!({ "done": done })));
    }
    Ok(0)
}

/// One request's `done`: the report and the exit status `ex check` would have, or the
/// error that stopped it (exit 2), which costs only this request.
fn one(
    cx: &mut Ctx,
    client: &mut WorkerClient,
    (device, cpu, reuse): (u32, bool, Option<&Path>),
    r: &Request,
    default_ws: &Workspace,
) -> serde_json::Value {
    let ws = match &r.workspace {
        Some(dir) => Workspace::locate(Some(dir)),
        None => Ok(default_ws.clone()),
    };
    let checked = ws.map_err(anyhow::Error::from).and_then(|ws| {
        cx.ws = ws;
        let how = How {
            quick: false,
            cpu,
            fail_fast: r.fail_fast || r.deciding.is_some(),
            reuse,
            deciding: r.deciding.as_deref(),
        };
        let said = |m: &str| out(&format!("{}\n", serde_json::json!({ "said": m })));
        let (report, _) = super::ex::check_saying(cx, client, (device, how), &r.id, said)?;
        // A progress book that cannot be written loses the record, not the verdict.
        let unrecorded = super::ex::record(cx, &r.id, &report).err();
        Ok((report, unrecorded))
    });
    match checked {
        Ok((report, unrecorded)) => serde_json::json!({
            "code": super::ex::exit_status(&report),
            "report": report,
            "not_recorded": unrecorded.map(|e| format!("{e:#}")),
        }),
        Err(e) => serde_json::json!({ "code": 2, "error": format!("{e:#}") }),
    }
}
