//! `gpulab render --all --check | --update`: every lesson's screen, drawn from the pack's
//! recording at a few fixed sizes, against snapshot files kept with the pack. No clock and no
//! GPU take part, so a screen changes only when the lesson, the recording or the lab does.
//!
//! The files are insta's (`snapfile`), named `<id>__<w>x<h>[_revealed].snap`, and for the
//! views over a lesson `<id>__<view>_<w>x<h>_revealed.snap`: the sweep charts of a lesson
//! that sweeps, the texture footprint of a lesson with textures. `--check` writes nothing
//! at all: a screen that differs is shown as a diff; `--update` is the author saying the
//! screens are right, and writes the `.snap` files (removing any `.snap.new` insta left).
//!
//! The snapshot folder comes with the pack, so nothing in it is trusted: a folder that is a
//! link, or a snapshot that is a link or not a plain file, is refused by name, in either
//! mode, and a `.snap` is replaced by a rename, never written through.

use super::load_whole_course;
use super::say::{say, say_part};
use super::snapfile;
use crate::course::bundle::CourseRoot;
use crate::model::Lesson;
use crate::model::results::LessonResult;
use crate::session::{recording, source};
use crate::ui::Screen;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Check,
    Update,
}

/// One screen of a lesson: its size, whether the figures are shown, and which view.
#[derive(Debug, Clone, Copy)]
struct Shot {
    width: u16,
    height: u16,
    reveal: bool,
    view: Screen,
}

/// A roomy terminal and the classic 80×24, each as a learner first sees the lesson (figures
/// hidden) and after a run (revealed). The first prose page: the others are text alone.
const SHOTS: [Shot; 4] = [
    Shot::new(120, 40, false),
    Shot::new(120, 40, true),
    Shot::new(80, 24, false),
    Shot::new(80, 24, true),
];

/// The views a lesson has beyond its screen, at both sizes, figures shown (hidden, a view
/// says only that they are hidden).
fn shots(lesson: &Lesson) -> Vec<Shot> {
    let mut out = SHOTS.to_vec();
    // The views only some lessons have: the lesson and its heatmap are every lesson's.
    let views = super::render::views_of(lesson);
    let extra = views
        .into_iter()
        .filter(|v| matches!(v, Screen::Chart | Screen::Footprint));
    for view in extra {
        for (width, height) in [(120, 40), (80, 24)] {
            out.push(Shot {
                view,
                ..Shot::new(width, height, true)
            });
        }
    }
    out
}

impl Shot {
    const fn new(width: u16, height: u16, reveal: bool) -> Shot {
        Shot {
            width,
            height,
            reveal,
            view: Screen::Lesson,
        }
    }

    fn file_name(&self, id: &str) -> String {
        let shown = if self.reveal { "_revealed" } else { "" };
        let view = match self.view {
            Screen::Lesson => String::new(),
            v => format!("{}_", v.name()),
        };
        format!("{id}__{view}{}x{}{shown}.snap", self.width, self.height)
    }

    /// The command that prints the same screen, for the file's header.
    fn expression(&self, id: &str) -> String {
        let shown = if self.reveal { " --reveal" } else { "" };
        let view = match self.view {
            Screen::Lesson => String::new(),
            v => format!(" --view {}", v.name()),
        };
        format!(
            "gpulab render {id}{view} --width {} --height {}{shown}",
            self.width, self.height
        )
    }
}

/// The snapshot folder: the one given, else `snapshots/` beside the pack's lessons folder;
/// for the bundled course, `tests/snapshots/pack` of the source tree (from its root).
pub fn snapshot_dir(root: &CourseRoot, given: Option<&Path>) -> PathBuf {
    if let Some(d) = given {
        return d.to_path_buf();
    }
    match root {
        CourseRoot::Bundled => PathBuf::from("tests/snapshots/pack"),
        CourseRoot::Dir(d) => d.parent().unwrap_or(Path::new(".")).join("snapshots"),
    }
}

/// What became of one lesson's screens.
#[derive(Default)]
struct Tally {
    /// Per lesson that differs: its id, the files that differ, the diff of the first.
    differing: Vec<(String, Vec<String>, String)>,
    written: usize,
    same: usize,
    /// Screens drawn, of every lesson.
    shots: usize,
}

pub fn cmd_render_all(root: &CourseRoot, given: Option<&Path>, mode: Mode) -> Result<i32> {
    let lessons = load_whole_course(root)?;
    let dir = snapshot_dir(root, given);
    no_link(&dir, "the snapshot folder")?;
    let rec = recording::newest(&root.recordings());
    let mut tally = Tally::default();
    for (idx, lesson) in lessons.iter().enumerate() {
        let result = source::recorded(rec.as_ref(), lesson);
        let mut files = Vec::new();
        let mut first_diff = None;
        for shot in shots(lesson) {
            tally.shots += 1;
            let snap = Snap::draw(&lessons, idx, &result, shot, &dir);
            let diff = match mode {
                Mode::Check => snap.check()?,
                Mode::Update => {
                    tally.written += usize::from(snap.update()?);
                    None
                }
            };
            match diff {
                Some(d) => {
                    files.push(shot.file_name(&lesson.id));
                    first_diff.get_or_insert(d);
                }
                None => tally.same += 1,
            }
        }
        if let Some(d) = first_diff {
            tally.differing.push((lesson.id.clone(), files, d));
        }
    }
    let code = report(&tally, &dir, mode, lessons.len());
    for name in unreferenced(&dir, &lessons) {
        say!("note: {name} is drawn by no lesson of the pack (delete it if it is stale)");
    }
    Ok(code)
}

/// The `.snap` files in `dir` that no lesson's screens would write: left behind by a lesson
/// renamed or removed. Said, not deleted, since the folder may hold files of other tools.
fn unreferenced(dir: &Path, lessons: &[Lesson]) -> Vec<String> {
    let ours: std::collections::HashSet<String> = lessons
        .iter()
        .flat_map(|l| shots(l).into_iter().map(|s| s.file_name(&l.id)))
        .collect();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".snap") && n.contains("__") && !ours.contains(n))
        .collect();
    out.sort();
    out
}

/// The summary on stdout, and the exit status: 1 when a check found a screen that differs.
fn report(t: &Tally, dir: &Path, mode: Mode, lessons: usize) -> i32 {
    let shots = t.shots;
    if mode == Mode::Update {
        say!(
            "{shots} screens of {lessons} lesson(s) in {}: {} written, {} already so",
            dir.display(),
            t.written,
            shots - t.written
        );
        return 0;
    }
    if t.differing.is_empty() {
        say!(
            "{shots} screens of {lessons} lesson(s) match the snapshots in {}",
            dir.display()
        );
        return 0;
    }
    say!(
        "{} of {lessons} lesson(s) differ from the snapshots in {}:",
        t.differing.len(),
        dir.display()
    );
    for (id, files, diff) in &t.differing {
        say_part!("\n{id}: {}\n{diff}", files.join(", "));
    }
    say!(
        "\n--check writes nothing: read the diffs, then accept the new screens with \
         `gpulab render --all --update`."
    );
    1
}

/// The rule for every path `render --all` reads or writes in the pack's snapshot folder.
const RULE: &str = "render --all reads and writes only plain files in a real snapshot folder, \
                    never through a link";

/// Refuse `path` when it is a link (or, for a file, not a plain file); fine when missing.
fn no_link(path: &Path, what: &str) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        anyhow::bail!("refused: {what} {} is a link ({RULE})", path.display());
    }
    let folder = what == "the snapshot folder";
    let plain = if folder {
        kind.is_dir()
    } else {
        kind.is_file()
    };
    if !plain {
        let is = crate::course::text::kind_of(&kind);
        anyhow::bail!(
            "refused: {what} {} is a {is}, not a plain {} ({RULE})",
            path.display(),
            if folder { "folder" } else { "file" }
        );
    }
    Ok(())
}

/// One screen drawn, and where its snapshot file is.
struct Snap {
    path: PathBuf,
    file: String,
    screen: String,
}

impl Snap {
    fn draw(lessons: &[Lesson], idx: usize, result: &LessonResult, shot: Shot, dir: &Path) -> Snap {
        let lesson = &lessons[idx];
        let variant = match shot.view {
            Screen::Footprint => crate::ui::footprint_variant(lesson, Some(result)),
            _ => 0,
        };
        let ui_shot = crate::ui::Shot {
            page: 0,
            width: shot.width,
            height: shot.height,
            reveal: shot.reveal,
            view: shot.view,
            variant,
        };
        let screen = crate::ui::render_view(lessons, idx, Some(result.clone()), ui_shot);
        let name = Path::new(&lesson.file)
            .file_name()
            .map_or_else(|| lesson.file.clone(), |n| n.to_string_lossy().into_owned());
        let file = snapfile::serialize(
            &format!("lessons/{name}"),
            &shot.expression(&lesson.id),
            &screen,
        );
        Snap {
            path: dir.join(shot.file_name(&lesson.id)),
            file,
            screen: snapfile::normalize(&screen),
        }
    }

    fn new_path(&self) -> PathBuf {
        let mut p = self.path.clone().into_os_string();
        p.push(".new");
        PathBuf::from(p)
    }

    /// The `.snap`'s text, None when there is none yet; a link is refused, not followed.
    fn read_old(&self) -> Result<Option<String>> {
        no_link(&self.path, "the snapshot")?;
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e).with_context(|| format!("reading {}", self.path.display())),
        }
    }

    /// None when the snapshot holds this screen; else the diff. Writes nothing.
    fn check(&self) -> Result<Option<String>> {
        let old = self.read_old()?.map(|t| snapfile::contents(&t));
        if old.as_deref() == Some(self.screen.as_str()) {
            return Ok(None);
        }
        let name = self
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        Ok(Some(match old {
            Some(old) => snapfile::short_diff(&old, &self.screen, &name, &format!("{name} (now)")),
            None => format!("no snapshot yet: {name}\n"),
        }))
    }

    /// Writes the `.snap` when it differs (true then), and removes any `.snap.new`.
    fn update(&self) -> Result<bool> {
        let same = self.read_old()?.is_some_and(|old| old == self.file);
        if !same {
            write(&self.path, &self.file)?;
        }
        self.remove_new()?;
        Ok(!same)
    }

    /// Removing only unlinks: a `.snap.new` that is a link goes, its target untouched.
    fn remove_new(&self) -> Result<()> {
        match std::fs::remove_file(self.new_path()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", self.new_path().display()))
            }
            _ => Ok(()),
        }
    }
}

/// A temporary file of our own beside `path` (created new, never through a link), then a
/// rename over it: what was at `path` is replaced, never written through.
fn write(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        no_link(d, "the snapshot folder")?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("writing {}", path.display()))
}
