//! Text that must fit a width it does not choose: a line of parts shortened by priority
//! (the least needed part goes first, a part that may shrink loses whole words and says so
//! with "…"), and styled lines wrapped at words, so that what is scrolled is counted in the
//! rows it is drawn in. Nothing here cuts a word in two, except a word wider than the
//! whole width.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// What a line cut short with "…" does not end on.
const SEPARATORS: [char; 8] = [',', ';', ':', '·', ' ', '—', '-', '('];

/// Columns `s` takes on screen.
pub fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// `s` in at most `max` columns: whole words, with "…" where some were left off; empty
/// where not even one word fits. Leading blanks are kept.
pub fn shorten(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    let lead = &s[..s.len() - s.trim_start().len()];
    let mut out = lead.to_string();
    for word in s.split_whitespace() {
        let gap = usize::from(out.len() > lead.len());
        if width(&out) + gap + width(word) + 1 > max {
            break;
        }
        if gap == 1 {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.len() == lead.len() {
        return String::new();
    }
    // A word that ended in a separator reads better without it before the "…".
    let trimmed = out.trim_end_matches(SEPARATORS);
    // Nothing but separators left: nothing worth a "…".
    if !trimmed.chars().any(char::is_alphanumeric) {
        return String::new();
    }
    format!("{trimmed}…")
}

/// A part of a line: its text, how it is drawn, how much it is needed (0 most), and
/// whether it may lose words rather than go whole.
pub struct Part {
    pub text: String,
    pub style: Style,
    pub rank: u8,
    pub shrinks: bool,
}

impl Part {
    pub fn new(text: impl Into<String>, style: Style, rank: u8) -> Part {
        Part {
            text: text.into(),
            style,
            rank,
            shrinks: false,
        }
    }

    pub fn shrinking(mut self) -> Part {
        self.shrinks = true;
        self
    }
}

/// The parts in their order, in `max` columns: the least needed parts shrink or go first;
/// the most needed (rank 0) shrink last, by words.
pub fn fit_parts(mut parts: Vec<Part>, max: usize) -> Line<'static> {
    let total = |ps: &[Part]| ps.iter().map(|p| width(&p.text)).sum::<usize>();
    let mut ranks: Vec<u8> = parts.iter().map(|p| p.rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for &rank in ranks.iter().rev() {
        for i in (0..parts.len()).rev() {
            let over = total(&parts).saturating_sub(max);
            if over == 0 {
                break;
            }
            if parts[i].rank != rank {
                continue;
            }
            let p = &mut parts[i];
            let room = width(&p.text).saturating_sub(over);
            p.text = match p.shrinks || rank == 0 {
                true => shorten(&p.text, room),
                false => String::new(),
            };
        }
    }
    Line::from(
        parts
            .into_iter()
            .filter(|p| !p.text.is_empty())
            .map(|p| Span::styled(p.text, p.style))
            .collect::<Vec<_>>(),
    )
}

/// `lines` wrapped at words to `width` columns, each row a line of its own; rows after a
/// line's first start `hang` columns in.
pub fn wrap_all(lines: &[Line], width: usize, hang: usize) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap(l, width, hang)).collect()
}

/// One styled line wrapped at words; a word wider than a row is cut where it must be.
pub fn wrap(line: &Line, max: usize, hang: usize) -> Vec<Line<'static>> {
    let max = max.max(1);
    let hang = if hang * 2 < max { hang } else { 0 };
    let style = line.style;
    if line.width() <= max {
        let spans: Vec<Span<'static>> = (line.spans.iter())
            .map(|s| Span::styled(s.content.to_string(), s.style))
            .collect();
        return vec![Line::from(spans).style(style)];
    }
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    let mut has_word = false;
    // Blanks wait until the next word shows they fall inside a row, not at its end.
    let mut pending: Vec<Span<'static>> = Vec::new();
    for (text, st) in tokens(line) {
        if text.trim().is_empty() {
            pending.push(Span::styled(text, st));
            continue;
        }
        let gap: usize = pending.iter().map(Span::width).sum();
        if has_word && used + gap + width(&text) > max {
            rows.push(vec![Span::raw(" ".repeat(hang))]);
            used = hang;
            pending.clear();
        } else {
            used += gap;
            rows.last_mut().unwrap().append(&mut pending);
        }
        let mut word = text;
        if used + width(&word) > max {
            if used >= max {
                rows.push(vec![Span::raw(" ".repeat(hang))]);
                used = hang;
            }
            // Cut in one pass: a word of a megabyte is as many rows, not as many passes.
            let mut cut = pieces(&word, max - used, max - hang);
            let last = cut.pop().unwrap_or_default();
            for piece in cut {
                rows.last_mut().unwrap().push(Span::styled(piece, st));
                rows.push(vec![Span::raw(" ".repeat(hang))]);
                used = hang;
            }
            word = last;
        }
        used += width(&word);
        has_word = true;
        rows.last_mut().unwrap().push(Span::styled(word, st));
    }
    rows.into_iter()
        .map(|spans| Line::from(spans).style(style))
        .collect()
}

/// Signs that read as one with the figure after them: a row never ends on one ("by ≥" with
/// "1.2×" on the next row, or cut off under it).
const SIGNS: [&str; 8] = ["≥", "≤", "=", "≠", "<", ">", "≈", "±"];

/// The line's words and blanks, each with its span's style; a sign and the word after it
/// (in one style) are one word.
fn tokens(line: &Line) -> Vec<(String, Style)> {
    let mut out: Vec<(String, Style)> = Vec::new();
    for t in raw_tokens(line) {
        let n = out.len();
        let glued = n >= 2
            && !t.0.trim().is_empty()
            && out[n - 1].0.trim().is_empty()
            && SIGNS.contains(&out[n - 2].0.as_str())
            && out[n - 2].1 == t.1
            && out[n - 1].1 == t.1;
        if glued {
            let blank = out.pop().unwrap().0;
            let sign = &mut out[n - 2].0;
            sign.push_str(&blank);
            sign.push_str(&t.0);
        } else {
            out.push(t);
        }
    }
    out
}

/// The line's words and blanks, each with its span's style.
fn raw_tokens(line: &Line) -> Vec<(String, Style)> {
    let mut out = Vec::new();
    for s in &line.spans {
        let st = line.style.patch(s.style);
        let mut cur = String::new();
        let mut blank = None;
        for ch in s.content.chars() {
            let b = ch.is_whitespace();
            if blank.is_some_and(|was| was != b) {
                out.push((std::mem::take(&mut cur), st));
            }
            blank = Some(b);
            cur.push(ch);
        }
        if !cur.is_empty() {
            out.push((cur, st));
        }
    }
    out
}

/// `s` cut into pieces of at most `first` columns, then `next` columns each (each piece at
/// least one character), in one pass over it.
pub(crate) fn pieces(s: &str, first: usize, next: usize) -> Vec<String> {
    let mut out = Vec::new();
    let (mut cur, mut w, mut room) = (String::new(), 0, first.max(1));
    for ch in s.chars() {
        let cw = width(ch.encode_utf8(&mut [0; 4]));
        if w + cw > room && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            (w, room) = (0, next.max(1));
        }
        cur.push(ch);
        w += cw;
    }
    out.push(cur);
    out
}

/// The rows `lines` take wrapped to `width`.
pub fn rows(lines: &[Line], width: usize, hang: usize) -> usize {
    lines.iter().map(|l| wrap(l, width, hang).len()).sum()
}

/// `lines` wrapped to `width` and kept to `height` rows. Where a line's rows go on past the
/// last one kept, that row loses words to end in "…": a pane cut short never ends on a
/// line broken off mid-sentence as if it were whole.
pub fn wrap_within(lines: &[Line], width: usize, height: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for l in lines {
        let rows = wrap(l, width, 0);
        let room = height - out.len();
        if rows.len() <= room {
            out.extend(rows);
            if out.len() == height {
                break;
            }
            continue;
        }
        let mut rows = rows.into_iter().take(room).collect::<Vec<_>>();
        if let Some(last) = rows.pop() {
            rows.push(ending_short(&last, width));
        }
        out.extend(rows);
        break;
    }
    out
}

/// `row` with words taken off its end until "…" fits after them, styles kept; a separator
/// it would then end on goes too, as `shorten` has it.
fn ending_short(row: &Line, max: usize) -> Line<'static> {
    let mut toks = tokens(row);
    let taken = |ts: &[(String, Style)]| ts.iter().map(|t| width(&t.0)).sum::<usize>();
    loop {
        while toks.last().is_some_and(|t| t.0.trim().is_empty()) {
            toks.pop();
        }
        if let Some(t) = toks.last_mut() {
            let kept = t.0.trim_end_matches(SEPARATORS).len();
            t.0.truncate(kept);
            if t.0.is_empty() {
                toks.pop();
                continue;
            }
        }
        if toks.is_empty() || taken(&toks) < max {
            break;
        }
        toks.pop();
    }
    let style = toks.last().map_or(Style::default(), |t| t.1);
    let mut spans: Vec<Span<'static>> = (toks.into_iter())
        .map(|(t, st)| Span::styled(t, st))
        .collect();
    spans.push(Span::styled("…", style));
    Line::from(spans).style(row.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn shorten_keeps_whole_words() {
        assert_eq!(
            shorten("recorded on NVIDIA H100 80GB", 99),
            "recorded on NVIDIA H100 80GB"
        );
        assert_eq!(
            shorten("recorded on NVIDIA H100 80GB", 20),
            "recorded on NVIDIA…"
        );
        assert_eq!(shorten("one, two three", 9), "one, two…");
        assert_eq!(
            shorten("one, two three", 6),
            "one…",
            "no comma before the …"
        );
        assert_eq!(shorten("unbreakable", 5), "");
        assert_eq!(shorten(" · looking for a GPU", 6), "", "no lone separator");
    }

    #[test]
    fn the_least_needed_part_goes_first() {
        let parts = vec![
            Part::new("00 · ", Style::default(), 0),
            Part::new("A long title of many words", Style::default(), 2).shrinking(),
            Part::new(" ── recorded", Style::default(), 1),
        ];
        let l = fit_parts(parts, 30);
        assert_eq!(text(&l), "00 · A long title… ── recorded");
        let parts = vec![
            Part::new("keep ", Style::default(), 0),
            Part::new("drop me ", Style::default(), 2),
            Part::new("also", Style::default(), 1),
        ];
        assert_eq!(text(&fit_parts(parts, 10)), "keep also");
    }

    #[test]
    fn wrapping_breaks_at_words_and_hangs() {
        let l = Line::from(vec![
            Span::raw("  key  "),
            Span::raw("what it does, in words"),
        ]);
        let rows: Vec<String> = wrap(&l, 16, 7).iter().map(text).collect();
        assert_eq!(rows, ["  key  what it", "       does, in", "       words"]);
        for r in &rows {
            assert!(width(r) <= 16, "{r:?}");
        }
        // A sign stays with its figure.
        let claim = Line::raw("✓ slower than stride-1 by ≥ 1.4×");
        let rows: Vec<String> = wrap(&claim, 28, 0).iter().map(text).collect();
        assert_eq!(rows, ["✓ slower than stride-1 by", "≥ 1.4×"]);
        let long = Line::raw("abcdefghijkl xy");
        let rows: Vec<String> = wrap(&long, 5, 0).iter().map(text).collect();
        assert_eq!(rows, ["abcde", "fghij", "kl xy"]);
    }

    #[test]
    fn a_line_cut_short_ends_in_an_ellipsis() {
        let lines = [
            Line::raw("first line"),
            Line::raw("a second line, long enough to wrap (run on the CPU interpreter)"),
        ];
        let rows: Vec<String> = wrap_within(&lines, 20, 3).iter().map(text).collect();
        assert_eq!(
            rows,
            ["first line", "a second line, long", "enough to wrap (run…"]
        );
        let rows: Vec<String> = wrap_within(&lines, 20, 2).iter().map(text).collect();
        assert_eq!(rows, ["first line", "a second line, long…"]);
        let comma = [Line::raw("alpha beta, gamma delta epsilon")];
        let rows: Vec<String> = wrap_within(&comma, 12, 1).iter().map(text).collect();
        assert_eq!(rows, ["alpha beta…"], "no comma before the …");
        // Whole lines that fill the height need no mark.
        let rows: Vec<String> = wrap_within(&lines[..1], 20, 1).iter().map(text).collect();
        assert_eq!(rows, ["first line"]);
    }
}
