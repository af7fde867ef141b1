//! The course's answers as the wrong-answer tests see them: every exercise of the bundled
//! course, its starter and solution, each `wrong/*.cu` beside them with its header read
//! (what it gets wrong, which check must catch it, on the CPU or only on a GPU), and any
//! `right/*.cu` (another right answer that must pass). Each is checked the way a learner
//! checks it: put in a fresh workspace as the learner's file and `gpulab ex check ID`, or
//! as a request to `gpulab ex check-many`, which judges as `ex check` does (a test says so)
//! with one process a thread.

#![allow(dead_code)]

use crate::support::common::{bin, manifest_dir};
use gpulab::course::bundle::CourseRoot;
use gpulab::session::exercise::own_lines::{ATOMICS_LINE, BULK_LINE, RACE_LINE, UNSEEN_LINE};
use gpulab::session::exercise::report::CORRECT_LINE;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the verdict must come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    Cpu,
    /// Only a GPU can tell (a time); the reason follows the dash.
    Gpu,
}

/// What a case is, and so what its check must say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Starter,
    Solution,
    /// Another right answer (`right/*.cu`).
    Right,
    /// A wrong answer and the check that must catch it: one of the exercise's checks as
    /// written, or `correct`, `race`, `compile`.
    Wrong {
        caught_by: String,
        on: On,
        /// What kind of wrong it is (`CLASSES`).
        class: String,
    },
}

#[derive(Debug, Clone)]
pub struct Case {
    pub exercise: String,
    /// `starter`, `solution`, `wrong/<name>.cu`, `right/<name>.cu`.
    pub name: String,
    pub path: PathBuf,
    pub kind: Kind,
}

/// An exercise and everything shipped beside it.
pub struct Shipped {
    pub id: String,
    pub checks: Vec<String>,
    pub dir: PathBuf,
    pub cases: Vec<Case>,
}

impl Shipped {
    /// Every wrong answer of it is one only a GPU tells (the interpreter cannot run the
    /// exercise at all): the CPU test leaves it to a GPU.
    pub fn all_wrong_on_gpu(&self) -> bool {
        let on = |c: &Case| match &c.kind {
            Kind::Wrong { on, .. } => Some(*on),
            _ => None,
        };
        let wrong: Vec<On> = self.cases.iter().filter_map(on).collect();
        !wrong.is_empty() && wrong.iter().all(|o| *o == On::Gpu)
    }
}

/// The kinds of wrong answer (docs/lesson-format.md, Exercises): each file's first line
/// names one, `// wrong: [CLASS] ...`.
pub const CLASSES: [&str; 14] = [
    "wrong output",
    "unbounded",
    "off the point",
    "token use",
    "slow-variant timing",
    "unchecked structure",
    "block race",
    "warp race",
    "cluster race",
    "grid race",
    "hidden trace",
    "predictable input",
    "one size",
    "faked flag",
];

/// A wrong answer's header as read: the check that must catch it, where, and its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub caught_by: String,
    pub on: On,
    pub class: String,
}

/// The header of a wrong answer, or what is wrong with it.
pub fn header(text: &str, checks: &[String]) -> Result<Header, String> {
    let mut lines = text.lines();
    let mut field = |key: &str| -> Result<String, String> {
        let l = lines.next().unwrap_or_default();
        l.strip_prefix(&format!("// {key}:"))
            .map(|v| v.trim().to_string())
            .ok_or_else(|| format!("expected a line `// {key}: ...`, found `{l}`"))
    };
    let what = field("wrong")?;
    let (class, what) = what
        .strip_prefix('[')
        .and_then(|w| w.split_once(']'))
        .ok_or_else(|| format!("`// wrong: {what}` names no class: `// wrong: [CLASS] ...`"))?;
    if !CLASSES.contains(&class) {
        return Err(format!(
            "`[{class}]` is not a class of wrong answer ({})",
            CLASSES.join(", ")
        ));
    }
    if what.trim().is_empty() {
        return Err("`// wrong:` says nothing".into());
    }
    let caught_by = field("caught by")?;
    let known = ["correct", "race", "compile", "atomics", "bulk", "unseen"];
    if !known.contains(&caught_by.as_str()) && !checks.contains(&caught_by) {
        return Err(format!(
            "`caught by: {caught_by}` is none of the exercise's checks ({}) nor {}",
            checks.join("; "),
            known.join(", ")
        ));
    }
    let on = field("on")?;
    let on = match on.as_str() {
        "cpu" => On::Cpu,
        o if o.starts_with("gpu") => {
            let why = o["gpu".len()..].trim_start();
            let why = why
                .strip_prefix('-')
                .or_else(|| why.strip_prefix('—'))
                .or_else(|| why.strip_prefix('–'))
                .map(str::trim)
                .unwrap_or_default();
            if why.is_empty() {
                return Err("`on: gpu` must say why after a dash".into());
            }
            On::Gpu
        }
        o => return Err(format!("`on: {o}` is neither `cpu` nor `gpu - why`")),
    };
    Ok(Header {
        caught_by,
        on,
        class: class.to_string(),
    })
}

/// Every exercise of the bundled course with its cases; a wrong answer whose header does
/// not read is a problem, named in the second list.
pub fn shipped() -> (Vec<Shipped>, Vec<String>) {
    let (lessons, errors) = gpulab::course::load_course(&CourseRoot::Bundled);
    assert!(errors.is_empty(), "{errors:?}");
    let root = manifest_dir();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for ex in lessons.iter().flat_map(|l| &l.exercises) {
        let checks: Vec<String> = ex.checks.iter().map(|c| c.text.clone()).collect();
        let solution = root.join(&ex.solution_path);
        let dir = solution.parent().unwrap().to_path_buf();
        let case = |name: &str, path: PathBuf, kind| Case {
            exercise: ex.id.clone(),
            name: name.to_string(),
            path,
            kind,
        };
        let mut cases = vec![
            case("starter", root.join(&ex.starter_path), Kind::Starter),
            case("solution", solution, Kind::Solution),
        ];
        for (sub, wrong) in [("wrong", true), ("right", false)] {
            for path in cu_files(&dir.join(sub)) {
                let name = format!("{sub}/{}", path.file_name().unwrap().to_string_lossy());
                if !wrong {
                    if needs_cccl(&path) && !cccl_headers() && !required() {
                        eprintln!(
                            "{}: {name} not checked: it includes cooperative groups, whose \
                             headers need CCCL's (pip install nvidia-cuda-cccl)",
                            ex.id
                        );
                        continue;
                    }
                    cases.push(case(&name, path, Kind::Right));
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                match header(&text, &checks) {
                    Ok(Header {
                        caught_by,
                        on,
                        class,
                    }) => cases.push(case(
                        &name,
                        path,
                        Kind::Wrong {
                            caught_by,
                            on,
                            class,
                        },
                    )),
                    Err(e) => problems.push(format!("{}: {name}: {e}", ex.id)),
                }
            }
        }
        out.push(Shipped {
            id: ex.id.clone(),
            checks,
            dir,
            cases,
        });
    }
    (out, problems)
}

/// Whether an answer includes cooperative groups, whose headers include CCCL's
/// `<nv/target>`.
fn needs_cccl(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| t.contains("#include <cooperative_groups"))
}

/// Whether the headers the lab compiles with hold CCCL's `<nv/target>`, as `gpulab doctor`
/// lists them (a toolkit has them; the NVRTC wheels alone do not).
fn cccl_headers() -> bool {
    static FOUND: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        let Ok(out) = Command::new(bin()).arg("doctor").output() else {
            return false;
        };
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let dirs = (text.lines()).find_map(|l| {
            l.split_once("CUDA headers")
                .map(|(_, d)| d.trim().to_string())
        });
        dirs.is_some_and(|d| {
            d.split(", ")
                .any(|d| Path::new(d).join("nv/target").is_file())
        })
    })
}

/// CI's runs: a case skipped for what the machine lacks is a failure there.
fn required() -> bool {
    std::env::var("GPULAB_REQUIRE_NVRTC").is_ok_and(|v| v == "1")
}

fn cu_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "cu"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// What one check of one case said.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub code: i32,
    pub report: serde_json::Value,
    pub stderr: String,
    pub secs: f64,
}

impl Outcome {
    /// (check, mark, detail) for every line.
    pub fn lines(&self) -> Vec<(String, String, String)> {
        let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        (self.report["lines"].as_array().into_iter().flatten())
            .map(|l| (s(&l["check"]), s(&l["mark"]), s(&l["detail"])))
            .collect()
    }

    pub fn compile_error(&self) -> Option<String> {
        self.report["compile_error"].as_str().map(str::to_string)
    }

    /// The failing lines, as `check` names them in a wrong answer's header.
    pub fn failed(&self) -> Vec<String> {
        let mut v: Vec<String> = (self.lines().into_iter())
            .filter(|(_, m, _)| m == "fail")
            .map(|(c, _, _)| match c.as_str() {
                CORRECT_LINE => "correct".to_string(),
                RACE_LINE => "race".to_string(),
                ATOMICS_LINE => "atomics".to_string(),
                BULK_LINE => "bulk".to_string(),
                UNSEEN_LINE => "unseen".to_string(),
                _ => c,
            })
            .collect();
        if self.compile_error().is_some() {
            v.push("compile".into());
        }
        v
    }

    /// A one-line account of each check, for a failure's message or a table.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (c, m, d) in self.lines() {
            s.push_str(&format!("    {m:<12} {c}: {d}\n"));
        }
        if let Some(e) = self.compile_error() {
            s.push_str(&format!("    compile error: {e}\n"));
        }
        s
    }
}

/// How a batch of answers is checked: on the interpreter (`cpu`), and with the solution's
/// figures kept in a folder for the exercise's later checks (`reuse`: `--reuse-figures`).
#[derive(Clone, Copy)]
pub struct Batch<'a> {
    pub cpu: bool,
    pub reuse: Option<&'a std::path::Path>,
}

/// Check `case` as the learner's file in a fresh workspace, as `batch` says.
pub fn check(case: &Case, batch: Batch) -> Outcome {
    let cpu = batch.cpu;
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::copy(&case.path, ws.join(format!("{}.cu", case.exercise))).unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["ex", "--workspace"])
        .arg(&ws)
        .args(["check", &case.exercise, "--json"]);
    if cpu {
        cmd.arg("--cpu");
    }
    let (fail_fast, deciding) = request_options(case, batch);
    if fail_fast {
        cmd.arg("--fail-fast");
    }
    if let Some(check) = deciding {
        cmd.arg("--deciding").arg(check);
    }
    if let Some(dir) = batch.reuse {
        cmd.arg("--reuse-figures").arg(dir);
    }
    // On the CPU, the interpreter this build makes (opt-level 1) runs a reduction at a GPU's
    // size (a million words in 16 blocks, the solution on a thread of its own) for 20 s and
    // more on a loaded host, silent meanwhile: a stall is not what these checks test (the
    // fault corpus does), as in the other CPU tests.
    if cpu {
        cmd.env("GPULAB_TIMEOUT_S", "180");
    }
    let start = Instant::now();
    let mut child = cmd
        .env("GPULAB_DATA_DIR", tmp.path().join("data"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Each line of what the check says is stamped with the seconds since it began: a
    // table's log then shows where a slow check spent its time (waiting for the GPU's
    // turn, a size, the interpreter).
    let err = child.stderr.take().unwrap();
    let stamper = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut said = String::new();
        for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            said.push_str(&format!("{:7.2} {l}\n", start.elapsed().as_secs_f64()));
        }
        said
    });
    let out = child.wait_with_output().unwrap();
    let secs = start.elapsed().as_secs_f64();
    let stderr = stamper.join().unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{} {}: no report ({e}); exit {:?}\n{stderr}",
            case.exercise,
            case.name,
            out.status.code()
        )
    });
    Outcome {
        code: out.status.code().unwrap_or(-1),
        report,
        stderr,
        secs,
    }
}

/// One `gpulab ex check-many` process: a thread's checks one after another, each in a
/// fresh workspace as `check` makes, with one loaded course and one worker (one GPU context)
/// for them all, where `check` pays for a process, a course and a context a case.
struct Lane {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
    /// What the process said on stderr besides its answers (for a failure's message).
    stderr: Option<std::thread::JoinHandle<String>>,
    /// Its progress book's folder, kept while it runs.
    _data: tempfile::TempDir,
}

impl Lane {
    fn start(batch: Batch) -> Lane {
        use std::process::Stdio;
        let data = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(bin());
        cmd.args(["ex", "check-many"]);
        if batch.cpu {
            cmd.arg("--cpu");
            // As in `check`: a long interpretation on a loaded host is not a stall.
            cmd.env("GPULAB_TIMEOUT_S", "180");
        }
        if let Some(dir) = batch.reuse {
            cmd.arg("--reuse-figures").arg(dir);
        }
        let mut child = (cmd.env("GPULAB_DATA_DIR", data.path()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut said = String::new();
            let _ = std::io::Read::read_to_string(&mut { err }, &mut said);
            said
        });
        Lane {
            stdin: child.stdin.take().unwrap(),
            stdout: std::io::BufRead::lines(std::io::BufReader::new(child.stdout.take().unwrap())),
            child,
            stderr: Some(stderr),
            _data: data,
        }
    }

    /// `check` of `case` by this process; Err where the process ended before answering
    /// (what it said on stderr), after which the lane is spent.
    fn check(&mut self, case: &Case, batch: Batch) -> Result<Outcome, String> {
        use std::io::Write;
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::copy(&case.path, ws.join(format!("{}.cu", case.exercise))).unwrap();
        let (fail_fast, deciding) = request_options(case, batch);
        let request = serde_json::json!({
            "id": case.exercise,
            "workspace": ws,
            "fail_fast": fail_fast,
            "deciding": deciding,
        });
        let start = Instant::now();
        let sent = writeln!(self.stdin, "{request}").and_then(|()| self.stdin.flush());
        // Each stage it says is stamped with the seconds since the check began, as `check`
        // stamps its stderr.
        let mut said = String::new();
        while sent.is_ok() {
            let Some(Ok(line)) = self.stdout.next() else {
                break;
            };
            let v: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("ex check-many said {line:?}: {e}"));
            if let Some(m) = v["said"].as_str() {
                said.push_str(&format!("{:7.2} · {m}\n", start.elapsed().as_secs_f64()));
                continue;
            }
            let done = &v["done"];
            let report = done["report"].clone();
            assert!(
                report.is_object(),
                "{} {}: no report ({}); exit {}\n{said}",
                case.exercise,
                case.name,
                done["error"],
                done["code"]
            );
            return Ok(Outcome {
                code: done["code"].as_i64().unwrap_or(-1) as i32,
                report,
                stderr: said,
                secs: start.elapsed().as_secs_f64(),
            });
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let err = self.stderr.take().map(|h| h.join().unwrap_or_default());
        Err(format!("{said}{}", err.unwrap_or_default()))
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        // Every request sent was answered before a lane is dropped: nothing is lost by
        // ending it at once rather than waiting for it to read the end of its stdin.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What `ex check-many --cpu` writes on stdout for `input`, its progress book in `data`.
pub fn check_many_raw(input: &str, data: &Path) -> String {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(["ex", "check-many", "--cpu"])
        .env("GPULAB_DATA_DIR", data.join("data"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// `--fail-fast` and `--deciding` as a case is checked: an answer that must fail needs
/// only the check that catches it (once one has failed at the lesson's size the other sizes
/// are not run; the output of the run made is still judged), and on a GPU the check a wrong
/// answer's file names is judged first, with only the runs it needs; a right answer is
/// checked whole.
fn request_options(case: &Case, batch: Batch) -> (bool, Option<String>) {
    let fail_fast = matches!(case.kind, Kind::Starter | Kind::Wrong { .. });
    let deciding = match &case.kind {
        Kind::Wrong { caught_by, .. } if !batch.cpu => Some(caught_by.clone()),
        _ => None,
    };
    (fail_fast, deciding)
}

/// `check` for every case, on `threads` threads at once; the outcomes in the cases' order.
pub fn check_all(cases: &[Case], cpu: bool, threads: usize) -> Vec<Outcome> {
    check_all_saying(cases, Batch { cpu, reuse: None }, threads, |_, _| {})
}

/// `check_all`, calling `done` with each case and its outcome as it is checked (in the
/// order they finish): a long table shows its rows as they come, and keeps them when a
/// slot on a GPU machine ends before it does. Each thread checks its cases with one
/// `ex check-many` process (`Lane`), which answers as `ex check` does.
pub fn check_all_saying(
    cases: &[Case],
    batch: Batch,
    threads: usize,
    done_one: impl Fn(&Case, &Outcome) + Sync,
) -> Vec<Outcome> {
    let next = Mutex::new(0usize);
    let done: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut lane: Option<Lane> = None;
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        *n += 1;
                        *n - 1
                    };
                    let Some(case) = cases.get(i) else { break };
                    let o = (lane.get_or_insert_with(|| Lane::start(batch)))
                        .check(case, batch)
                        .unwrap_or_else(|said| {
                            panic!(
                                "{} {}: ex check-many ended without an answer\n{said}",
                                case.exercise, case.name
                            )
                        });
                    done_one(case, &o);
                    done.lock().unwrap()[i] = Some(o);
                }
            });
        }
    });
    (done.into_inner().unwrap().into_iter())
        .map(|o| o.expect("every case was checked"))
        .collect()
}

/// Threads for `check_all`: each check is one process at a time (the command, then its
/// worker), so one per core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// What is wrong with `o` as the outcome of `case`, judged by what the CPU can tell
/// (`cpu`) or by a GPU; None when it is as it must be.
pub fn verdict(case: &Case, o: &Outcome, cpu: bool) -> Option<String> {
    let failed = o.failed();
    let bad_marks: Vec<String> = (o.lines().into_iter())
        .filter(|(_, m, _)| m == "fail" || m == "not_measured")
        .map(|(c, m, _)| format!("{c} ({m})"))
        .collect();
    match &case.kind {
        // A starter compiles (the learner starts from a kernel that runs) and fails a check.
        Kind::Starter => match o.compile_error() {
            Some(e) => Some(format!("the starter does not compile: {e}")),
            None => (o.code != 1 || failed.is_empty())
                .then(|| format!("the starter fails no check (exit {})", o.code)),
        },
        Kind::Solution | Kind::Right => {
            let what = if case.kind == Kind::Solution {
                "the solution"
            } else {
                "this right answer"
            };
            if let Some(e) = o.compile_error() {
                return Some(format!("{what} does not compile: {e}"));
            }
            // On the CPU the checks about time are not judged (exit 3); on a GPU all are.
            let ok = if cpu {
                o.code == 0 || o.code == 3
            } else {
                o.code == 0
            };
            let unjudged = (o.lines().into_iter()).any(|(_, m, _)| m == "needs_gpu");
            if !bad_marks.is_empty() || !ok || (!cpu && unjudged) {
                Some(format!(
                    "{what} does not pass (exit {}): {}",
                    o.code,
                    bad_marks.join(", ")
                ))
            } else {
                None
            }
        }
        Kind::Wrong { caught_by, .. } => {
            if o.code != 1 {
                Some(format!("passes (exit {}): no check fails", o.code))
            } else if !failed.contains(caught_by) {
                Some(format!(
                    "not caught by `{caught_by}`; what failed: {}",
                    if failed.is_empty() {
                        "nothing".to_string()
                    } else {
                        failed.join("; ")
                    }
                ))
            } else {
                None
            }
        }
    }
}

/// Seconds as the tests print them.
pub fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}
