//! The whole screen for one frame: lesson list, header, prose, variant columns, status and
//! keys. Borrows the state; owns nothing.

use crate::model::Lesson;
use crate::model::results::Source;
use crate::ui::app::App;
use crate::ui::state::view::Overlay;
use crate::ui::views::fit::{self, Part};
use crate::ui::views::status::status_rows;
use crate::ui::views::theme::Theme;
use crate::ui::views::{
    cards, chart, code, detail, diff, footprint, heatmap, knobs, list, loading, memcheck, overlays,
    prose,
};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let th = Theme::new(self.view.color());
        if let Some(l) = &self.loading {
            loading::render(l, area, buf, &th);
            return;
        }
        let a = prose::areas(self, area);
        if a.list.width > 0 {
            list::render_list(self, a.list, buf, &th);
        }
        let Some(lesson) = self.lesson() else {
            Paragraph::new("No lessons found. Check the --lessons folder (gpulab check).")
                .render(a.main, buf);
            return;
        };
        header_line(self, lesson, a.header.width, &th).render(a.header, buf);
        prose::render(self, a.prose, buf, &th);
        let sweeps = !lesson.sweeps.is_empty();
        if self.broken().is_some() {
            let words = " Nothing to run or show: this lesson does not load.";
            Paragraph::new(Line::styled(words, th.bad))
                .wrap(Wrap { trim: true })
                .render(a.cols, buf);
        } else if sweeps && self.view.chart() {
            chart::render(self, a.cols, buf, &th);
        } else if self.knob_table_shown() {
            knobs::render(self, a.cols, buf, &th);
        } else {
            cards::render_columns(self, a.cols, buf, &th);
        }
        let status: Vec<Line> = status_rows(self, a.status.width)
            .into_iter()
            .map(|r| Line::styled(format!(" {r}"), th.accent))
            .collect();
        Paragraph::new(status).render(a.status, buf);
        keys_line(self, a.keys.width as usize, &th).render(a.keys, buf);
        // Every pop-up leaves the header in view: the lesson, and where figures come from.
        let popup = a.popup;
        match self.view.overlay() {
            Overlay::None => {}
            Overlay::Help => overlays::render_help(self, popup, buf, &th),
            Overlay::Glossary => overlays::render_glossary(self, popup, buf, &th),
            Overlay::Detail => detail::render(self, popup, buf, &th),
            Overlay::Code => code::render_code(self, popup, buf, &th),
            Overlay::Diff => diff::render(self, popup, buf, &th),
            Overlay::Heatmap => heatmap::render_overlay(self, popup, buf, &th),
            Overlay::Footprint => footprint::render_overlay(self, popup, buf, &th),
            Overlay::Memcheck => memcheck::render(self, popup, buf, &th),
        }
    }
}

/// The keys of the screen, most needed first: help and quit, the lesson's own keys, then
/// the rest in order of use. What does not fit is in the help, and the line says so.
pub fn key_items(app: &App) -> Vec<(&'static str, &'static str)> {
    let Some(lesson) = app.lesson() else {
        return vec![("?", "help"), ("q", "quit")];
    };
    // A lesson that does not load is read and left: nothing else answers there.
    if app.broken().is_some() {
        return vec![
            ("?", "help"),
            ("q", "quit"),
            ("↑↓", "lesson/ex."),
            ("PgDn", "scroll"),
            ("L", "list"),
        ];
    }
    let exercise = app.exercises.open().is_some();
    let mut keys = vec![("?", "help"), ("q", "quit")];
    if exercise {
        keys.extend([("e", "edit your file"), ("r", "check now"), ("t", "hint")]);
    } else {
        if !lesson.sweeps.is_empty() {
            keys.push(("g", "chart"));
        }
        if !lesson.knobs.is_empty() {
            keys.push(("+-", "knob"));
        }
        if !lesson.textures.is_empty() {
            keys.push(("f", "footprint"));
        }
        keys.push(("r", "run"));
        // Two sources of figures: the key that switches them comes right after `r`.
        if app.runs.interpreted().contains_key(&lesson.id) {
            keys.push(("s", "recorded/CPU"));
        }
        if !app.revealed() {
            keys.push(("v", "figures"));
        }
    }
    if !app.page_terms().is_empty() {
        keys.push(("w", "new words"));
    }
    keys.extend([
        ("i", "details"),
        ("c", "code"),
        ("h", "heatmap"),
        ("d", "diff"),
    ]);
    keys.extend([("←→", "variant"), ("↑↓", "lesson/ex.")]);
    if !exercise {
        keys.push(("n/p", "page"));
    }
    keys.extend([("PgDn", "scroll"), ("L", "list")]);
    keys
}

/// The keys line in `width` columns: as many keys as fit, in order of need; where some are
/// left out, `?` says "more keys" in place of "help".
fn keys_line(app: &App, width: usize, th: &Theme) -> Line<'static> {
    let items = key_items(app);
    let item = |(k, what): &(&str, &str)| format!("  {k} {what}");
    let all: usize = items.iter().map(|i| fit::width(&item(i))).sum();
    let mut shown: Vec<String> = Vec::new();
    if all - 1 <= width {
        shown = items.iter().map(item).collect();
    } else {
        let mut used = fit::width(&item(&("?", "more keys")));
        shown.push(item(&("?", "more keys")));
        for i in &items[1..] {
            let w = fit::width(&item(i));
            // Order is need: one that does not fit ends the line, so none jumps the queue.
            if used + w > width + 1 {
                break;
            }
            used += w;
            shown.push(item(i));
        }
    }
    let text = shown.concat();
    Line::styled(text[1..].to_string(), th.dim)
}

/// The lesson's number and title, and where its figures come from: the source first, the
/// title shortened by words, the rest of the label only where there is room.
fn header_line(app: &App, lesson: &Lesson, width: u16, th: &Theme) -> Line<'static> {
    let label = app.result().map(|r| {
        let beside = app
            .exercises
            .open()
            .is_none()
            .then(|| app.recorded_beside_any());
        let mut s = vec![match beside.flatten() {
            // Two sources on screen: each named, the interpreter's first as it is in front.
            Some(rec) => format!(
                "CPU interpreter · times {}",
                crate::ui::views::source_words(app, rec)
            ),
            None => crate::ui::views::source_words(app, r),
        }];
        if r.source != Source::Live && r.compile == Some(Source::Live) {
            s.push("compile reports live".into());
        }
        if app.runs.caps().is_none() {
            s.push("looking for a GPU…".into());
        }
        // The last check measured yours (and what it compares with) here and now.
        if let Some(dev) = app.ex_report().and_then(|x| x.result.device.as_ref()) {
            s.push(format!("yours live on {}", dev.name));
        } else if app
            .ex_report()
            .is_some_and(|x| x.result.source == Source::Interpreted)
        {
            s.push("yours on the CPU interpreter".to_string());
        }
        s
    });
    // The title carries its own separator: where there is no room for it, the number
    // goes straight on to the exercise (" 05 · exercise pad-tile"), never " 05 ·  · ".
    let mut parts = vec![
        Part::new(format!(" {:02}", lesson.order), th.strong, 0),
        // The title gives way before the source's device does (`source_parts`): what the
        // figures are of is the one fact the header alone carries.
        Part::new(format!(" · {}", lesson.title), th.strong, 2).shrinking(),
    ];
    if let Some(x) = app.exercises.open() {
        parts.push(Part::new(
            format!(" · exercise {}", x.ex().id),
            th.strong,
            0,
        ));
    }
    parts.push(Part::new(" ── ", th.accent, 0));
    for (i, seg) in label.unwrap_or_default().into_iter().enumerate() {
        // The label's own parts: where from and when first, the device after the title,
        // then the rest.
        for (j, piece) in seg.split(" · ").enumerate() {
            match (i, j) {
                (0, 0) => parts.extend(source_parts(piece, th)),
                // Beside a run on the CPU interpreter, where the times come from is the
                // header's other fact ("CPU interpreter · times recorded on H100, …"): kept
                // as the source is, where it was cut to "times…" before the title gave way.
                (0, _) if piece.starts_with("times ") => {
                    parts.push(Part::new(" · ", th.accent, 0));
                    parts.extend(source_parts(piece, th));
                }
                // Where yours was measured is what an exercise screen is about: kept over
                // the compile reports' source and the search for a GPU.
                _ if piece.starts_with("yours ") => {
                    parts.push(Part::new(format!(" · {piece}"), th.accent, 1).shrinking())
                }
                _ => parts.push(Part::new(format!(" · {piece}"), th.accent, 2).shrinking()),
            }
        }
    }
    fit::fit_parts(parts, width as usize)
}

/// "recorded on NVIDIA H100 80GB HBM3, 2026-11-22" as its parts: how ("recorded") and when
/// are kept; of the device's name, the maker and the memory give way first, then the
/// lesson's title, and the model ("H100") last.
fn source_parts(label: &str, th: &Theme) -> Vec<Part> {
    let Some((how, rest)) = label.split_once(" on ") else {
        return vec![Part::new(label.to_string(), th.accent, 0).shrinking()];
    };
    let (device, date) = match rest.rsplit_once(", ") {
        Some((d, when))
            if when.len() == 10 && when.chars().all(|c| c.is_ascii_digit() || c == '-') =>
        {
            (d, format!(", {when}"))
        }
        _ => (rest, String::new()),
    };
    let (maker, model, more) = device_words(device);
    vec![
        Part::new(how.to_string(), th.accent, 0),
        Part::new(" on ", th.accent, 1),
        Part::new(maker, th.accent, 2),
        Part::new(model, th.accent, 1).shrinking(),
        Part::new(more, th.accent, 2),
        Part::new(date, th.accent, 0),
    ]
}

/// A device's name as its maker ("NVIDIA "), its model (up to the first word with a digit:
/// "H100", "GeForce RTX 4090") and the rest (" 80GB HBM3"); a name with no digit is all
/// model.
fn device_words(name: &str) -> (String, String, String) {
    let (maker, rest) = match name.strip_prefix("NVIDIA ") {
        Some(rest) => ("NVIDIA ".to_string(), rest),
        None => (String::new(), name),
    };
    let words: Vec<&str> = rest.split(' ').collect();
    let cut = words
        .iter()
        .position(|w| w.chars().any(|c| c.is_ascii_digit()))
        .map_or(words.len(), |i| i + 1);
    let model = words[..cut].join(" ");
    let more = match words[cut..].join(" ") {
        m if m.is_empty() => m,
        m => format!(" {m}"),
    };
    (maker, model, more)
}

#[cfg(test)]
mod tests {
    use super::device_words;

    /// The status row draws no backticks: "m needs compute-sanitizer (… see gpulab
    /// doctor)", not "see `gpulab doctor`".
    #[test]
    fn the_status_row_shows_code_without_backticks() {
        let mut app = crate::ui::App::new(Vec::new(), None, Default::default());
        app.message = Some("no NVRTC here: the SASS needs NVRTC (`gpulab doctor`)".into());
        let rows = crate::ui::views::status::status_rows(&app, 80);
        assert_eq!(
            rows,
            ["no NVRTC here: the SASS needs NVRTC (gpulab doctor)"]
        );
    }

    #[test]
    fn a_devices_name_splits_into_maker_model_and_the_rest() {
        let w = |n: &str| {
            let (a, b, c) = device_words(n);
            [a, b, c]
        };
        assert_eq!(
            w("NVIDIA H100 80GB HBM3"),
            ["NVIDIA ", "H100", " 80GB HBM3"]
        );
        assert_eq!(w("NVIDIA H200"), ["NVIDIA ", "H200", ""]);
        assert_eq!(
            w("NVIDIA GeForce RTX 4090"),
            ["NVIDIA ", "GeForce RTX 4090", ""]
        );
        assert_eq!(w("Test GPU"), ["", "Test GPU", ""]);
    }
}
