//! The prose pane: a page (or the checkpoint) wrapped to the pane's width and shown from an
//! offset, with a mark when more lies below or above. The keys that scroll use the same
//! `view` as the drawing, so what a key does always matches what the learner sees.

use crate::model::{Lesson, Page};
use crate::ui::app::App;
use crate::ui::views::page::{Content, width_of, wrap_hanging};
use crate::ui::views::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};
use std::ops::Range;

/// What the prose pane shows now.
pub struct Pane {
    pub content: Content,
    /// The first row on screen.
    pub offset: usize,
    /// How many rows the pane holds.
    pub height: usize,
}

impl Pane {
    pub fn max_offset(&self) -> usize {
        self.content.rows.len().saturating_sub(self.height)
    }

    pub fn more_below(&self) -> bool {
        self.offset < self.max_offset()
    }

    /// Whether any row of `rows` is on screen.
    pub fn shows(&self, rows: &Range<usize>) -> bool {
        rows.start < self.offset + self.height && rows.end > self.offset
    }
}

/// The lesson screen's parts, top to bottom, for a frame of size `area`; drawing and the
/// scrolling keys both lay the screen out here.
pub struct Areas {
    pub list: Rect,
    pub main: Rect,
    /// Where a pop-up goes: the lesson's side below its header, which stays in view and
    /// names where the figures in the pop-up come from (the code view's costs, the heatmap).
    pub popup: Rect,
    pub header: Rect,
    pub prose: Rect,
    pub cols: Rect,
    pub status: Rect,
    pub keys: Rect,
}

/// The lesson list's width, where it is shown.
pub const LIST_W: u16 = 26;

pub fn areas(app: &App, area: Rect) -> Areas {
    // `L` shows or hides it at any width that leaves the lesson room; else it comes with
    // a wide screen.
    let show_list = app.view.list().unwrap_or(area.width >= 90) && area.width >= LIST_W + 20;
    let [list, main] = Layout::horizontal([
        Constraint::Length(if show_list { LIST_W } else { 0 }),
        Constraint::Min(20),
    ])
    .areas(area);
    let rows = app
        .lesson()
        .map_or(1, |l| content(app, l, inner_width(main)).rows.len() as u16);
    // Prose takes what it needs up to two fifths; past that it scrolls.
    let prose_h = (rows.saturating_add(2))
        .min(main.height.saturating_sub(4) * 2 / 5)
        .max(4);
    let status_h = crate::ui::views::status::status_rows(app, main.width).len() as u16;
    let [header, prose, cols, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(prose_h),
        Constraint::Min(3),
        Constraint::Length(status_h),
        Constraint::Length(1),
    ])
    .areas(main);
    let popup = Rect {
        y: main.y + header.height,
        height: main.height.saturating_sub(header.height),
        ..main
    };
    Areas {
        list,
        main,
        popup,
        header,
        prose,
        cols,
        status,
        keys,
    }
}

fn inner_width(main: Rect) -> usize {
    main.width.saturating_sub(2) as usize
}

/// The prose pane as drawn in a frame of size `frame`; None before the first frame (or
/// with no lesson), when nothing is on screen to scroll.
pub fn view(app: &App, frame: Rect) -> Option<Pane> {
    let lesson = app.lesson()?;
    if frame.area() == 0 {
        return None;
    }
    let a = areas(app, frame);
    let content = content(app, lesson, inner_width(a.main));
    let height = a.prose.height.saturating_sub(2) as usize;
    let mut v = Pane {
        content,
        offset: 0,
        height,
    };
    let asked = current_question(app, lesson, &v.content);
    let answered = (app.reading.feedback())
        .filter(|_| app.reading.follow_question() && app.on_checkpoint_page())
        .and_then(|q| v.content.questions.get(q).cloned());
    let focus = (v.content.focus.clone()).filter(|_| app.reading.show_new());
    let want = match asked {
        // An answer just given: its question and explanation, from the question's top
        // where it fits, else as much as ends with the explanation.
        _ if answered.is_some() => {
            let q = answered.unwrap();
            let end = trim_blank_end(&v.content.rows, q.clone());
            match end - q.start <= height {
                true => q.start,
                false => end - height,
            }
        }
        // Something just added: scrolled to just far enough to show it, from its top
        // where it is longer than the pane.
        _ if focus.is_some() => {
            let f = focus.unwrap();
            (app.reading.prose_scroll())
                .max(f.end.saturating_sub(height))
                .min(f.start)
        }
        Some(rows) if app.reading.follow_question() => rows.start,
        // Every question answered: the last explanation stays in view.
        None if app.reading.follow_question() && app.on_checkpoint_page() => usize::MAX,
        _ => app.reading.prose_scroll(),
    };
    v.offset = want.min(v.max_offset());
    Some(v)
}

/// The end of `rows` without the blank rows that close it.
fn trim_blank_end(all: &[String], rows: Range<usize>) -> usize {
    let mut end = rows.end.min(all.len());
    while end > rows.start && all[end - 1].trim().is_empty() {
        end -= 1;
    }
    end
}

/// The rows of the first unanswered checkpoint question, on the checkpoint page.
pub fn current_question(app: &App, lesson: &Lesson, c: &Content) -> Option<Range<usize>> {
    if !app.on_checkpoint_page() {
        return None;
    }
    let q = (0..lesson.checkpoint.len()).find(|&q| app.reading.answer(&lesson.id, q).is_none())?;
    c.questions.get(q).cloned()
}

/// The page on screen, wrapped to `width`.
/// What a page that answers the predictions says before the lesson has run.
fn closed_page(app: &App, lesson: &Lesson) -> Page {
    let title = match lesson.pages.get(app.reading.page()) {
        Some(p) => p.title.clone(),
        None => "Checkpoint".into(),
    };
    let what = match app.on_checkpoint_page() {
        true => "The checkpoint asks about what the run shows",
        false => "This page answers the lesson's predictions",
    };
    let text = format!(
        "{what}, so it opens once the lesson has run.\n\nMake your predictions on the \
         pages before it, then press r to run the lesson (on this GPU, or on the CPU \
         interpreter), or v to see the recorded figures. n and p still turn the pages."
    );
    Page {
        title,
        text,
        answers: true,
    }
}

pub fn content(app: &App, lesson: &Lesson, width: usize) -> Content {
    if let Some(x) = app.exercises.open() {
        return crate::ui::views::exercise::content(app, x, width);
    }
    let (page, starts) = if app.page_closed() {
        (closed_page(app, lesson), Vec::new())
    } else if app.on_checkpoint_page() {
        crate::ui::views::checkpoint::page_with_starts(app, lesson)
    } else {
        match lesson.pages.get(app.reading.page()) {
            // Its paragraphs joined: the pane wraps them at its own width.
            Some(p) => {
                let text = crate::course::prose::reflow(&p.text);
                let title = p.title.clone();
                let answers = p.answers;
                (
                    Page {
                        title,
                        text,
                        answers,
                    },
                    Vec::new(),
                )
            }
            None => return empty(),
        }
    };
    let mut rows = Vec::new();
    let mut line_rows = Vec::new();
    let text = page.text.trim_end();
    // The checkpoint's questions and choices hang: a wrapped choice reads on under its
    // text, clear of the numbers down the left.
    let hanging = !starts.is_empty();
    for line in text.lines() {
        line_rows.push(rows.len());
        let hang = if hanging { marker_width(line) } else { 0 };
        rows.extend(wrap_hanging(line, width, hang));
    }
    line_rows.push(rows.len());
    let row_of = |line: usize| line_rows.get(line).copied().unwrap_or(rows.len());
    let mut questions = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(rows.len(), |&e| row_of(e));
        questions.push(row_of(s)..end);
    }
    Content {
        title: page.title,
        rows,
        questions,
        focus: None,
    }
}

fn empty() -> Content {
    Content {
        title: String::new(),
        rows: Vec::new(),
        questions: Vec::new(),
        focus: None,
    }
}

/// Columns a line's list marker takes with the blank after it ("1. ", "2) ", "✓ "), or 0.
fn marker_width(line: &str) -> usize {
    let Some(first) = line.split_whitespace().next() else {
        return 0;
    };
    let numbered = (first.strip_suffix('.').or(first.strip_suffix(')')))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    match numbered || ["✓", "✗", "→"].contains(&first) {
        true => width_of(first) + 1,
        false => 0,
    }
}

/// The pane, its title with the page number, and a mark wherever text lies out of view.
pub fn render(app: &App, area: Rect, buf: &mut Buffer, th: &Theme) {
    // The buffer is the whole frame: the same size `view` lays the screen out for.
    let Some(v) = view(app, buf.area) else {
        return;
    };
    let title = match app.exercises.open() {
        Some(_) => format!(" {} ", v.content.title),
        None => format!(
            " {} · page {}/{} ",
            v.content.title,
            app.reading.page() + 1,
            app.page_count()
        ),
    };
    let terms = app.page_terms();
    // The title gives way to the mark of new words where both do not fit.
    let words = terms_mark(terms, area.width as usize / 2);
    let room = (area.width as usize).saturating_sub(2 + crate::ui::views::fit::width(&words));
    let title = match crate::ui::views::fit::width(&title) <= room {
        true => title,
        false => format!(
            "{} ",
            crate::ui::views::fit::shorten(&title, room.saturating_sub(1))
        ),
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(th.border)
        .title(Line::styled(title, th.title));
    if !words.is_empty() {
        block = block.title(Line::styled(words, th.accent).right_aligned());
    }
    if v.more_below() {
        block =
            block.title_bottom(Line::styled(" ▼ more below · PgDn ", th.accent).right_aligned());
    }
    if v.offset > 0 {
        block = block.title_bottom(Line::styled(" ▲ more above · PgUp ", th.dim).left_aligned());
    }
    // Each new word is underlined where the page first uses it.
    let mut marked: Vec<(usize, Range<usize>)> = Vec::new();
    for t in terms {
        let at = v.content.rows.iter().enumerate().find_map(|(i, r)| {
            t.forms
                .iter()
                .find_map(|f| crate::course::glossary::find_form(r, f))
                .map(|b| (i, b))
        });
        marked.extend(at);
    }
    // Whether each row starts inside a code span the wrap cut: once per draw, not per row.
    let open_code: Vec<bool> = (v.content.rows.iter())
        .scan(false, |open, r| {
            let at_start = *open;
            *open ^= r.matches('`').count() % 2 == 1;
            Some(at_start)
        })
        .collect();
    let shown: Vec<Line> = (v.content.rows.iter().enumerate())
        .skip(v.offset)
        .take(v.height)
        .map(|(i, r)| {
            let mut here: Vec<&Range<usize>> = marked
                .iter()
                .filter(|(m, _)| *m == i)
                .map(|(_, b)| b)
                .collect();
            here.sort_by_key(|b| b.start);
            let mut spans = Vec::new();
            let mut at = 0;
            for b in here {
                if b.start < at {
                    continue;
                }
                spans.push(Span::raw(r[at..b.start].to_string()));
                spans.push(Span::styled(r[b.clone()].to_string(), th.term));
                at = b.end;
            }
            spans.push(Span::raw(r[at..].to_string()));
            Line::from(marked_up(spans, open_code[i], th))
        })
        .collect();
    Paragraph::new(shown).block(block).render(area, buf);
}

/// A row's spans with prose's own marks read: "Predict:" in bold, and code between
/// backticks in the code style (its backticks dropped where colour shows it). A code
/// span cut by the wrap is marked on each of its rows (`in_code`: it began on one before).
fn marked_up<'a>(spans: Vec<Span<'a>>, in_code: bool, th: &Theme) -> Vec<Span<'a>> {
    let mut out = Vec::new();
    let mut in_code = in_code;
    for s in spans {
        let text = s.content.to_string();
        let parts: Vec<(String, bool)> = match th.code {
            Some(_) => (text.split('`').enumerate())
                .map(|(i, p)| {
                    if i > 0 {
                        in_code = !in_code;
                    }
                    (p.to_string(), in_code)
                })
                .collect(),
            None => vec![(text, false)],
        };
        for (part, code) in parts.into_iter().filter(|(p, _)| !p.is_empty()) {
            match (code, th.code) {
                (true, Some(c)) => out.push(Span::styled(part, c)),
                _ => out.extend(predicts(&part, s.style, th)),
            }
        }
    }
    out
}

/// `text` with each "Predict:" in bold.
fn predicts<'a>(text: &str, style: Style, th: &Theme) -> Vec<Span<'a>> {
    const WORD: &str = "Predict:";
    let mut out = Vec::new();
    for (i, piece) in text.split(WORD).enumerate() {
        if i > 0 {
            out.push(Span::styled(WORD, th.strong));
        }
        if !piece.is_empty() {
            out.push(Span::styled(piece.to_string(), style));
        }
    }
    out
}

/// The mark of the words this page is the first to use: " w: sector, request " where it
/// fits in `max` columns, else their count.
fn terms_mark(terms: &[&crate::course::glossary::Term], max: usize) -> String {
    if terms.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = terms.iter().map(|t| t.term).collect();
    let full = format!(" w: {} ", names.join(", "));
    if crate::ui::views::fit::width(&full) <= max {
        return full;
    }
    match terms.len() {
        1 => " w: a new word ".into(),
        n => format!(" w: {n} new words "),
    }
}
