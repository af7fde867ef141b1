//! Text from a lesson pack (titles, tasks, hints, variant names, compile errors quoting the
//! pack's source) is printed by the CLI through one function, `visible`, so that a pack
//! cannot reach the terminal with control sequences: an escape that retitles the window,
//! erases lines, writes the clipboard (OSC 52) or draws a fake "all checks passed". The
//! `say!` macros print through it; every print of the CLI uses them.

use crate::course::text;
use std::borrow::Cow;
use std::io::Write;

/// `text` with every control character made visible: C0 controls and DEL in caret notation
/// (ESC as `^[`, carriage return as `^M`), C1 controls and the bidirectional ones as
/// `\u{9b}`, `\u{202e}`; newlines and tabs stay.
pub fn visible(text: &str) -> Cow<'_, str> {
    let shown = |c: char| c == '\n' || c == '\t' || !(c.is_control() || text::is_bidi_control(c));
    if text.chars().all(shown) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if shown(c) => out.push(c),
            '\u{7f}' => out.push_str("^?"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// `visible`, with newlines and tabs made visible too (`^J`, `^I`): for a name that must stay
/// on its line, such as a folder's in a table's header, where a newline would forge rows.
pub fn visible_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("^J"),
            '\t' => out.push_str("^I"),
            c => out.push_str(&visible(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

/// Write `text` to stdout, at once. A reader that has gone (`gpulab check | head -1`) ends
/// the command quietly, as it ends other command-line tools: exit status 141, which a shell
/// shows for a tool that SIGPIPE ended. Only stdout and stderr end a command so: a worker's
/// closed pipe is a fault the client reports, and the command goes on to say it. SIGPIPE
/// itself stays ignored (as Rust sets it), so that a write to a gone worker is an error.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(text.as_bytes()).and_then(|()| o.flush()) {
        gone(&e);
        // Not a reader that went (a full disk, say): said once, and the command stops.
        let _ = writeln!(std::io::stderr(), "gpulab: writing the output: {e}");
        std::process::exit(2);
    }
}

/// Write `text` to stderr; a reader that has gone ends the command quietly, as on stdout.
/// Any other failure is dropped: there is nowhere left to say it.
pub fn err(text: &str) {
    if let Err(e) = std::io::stderr().lock().write_all(text.as_bytes()) {
        gone(&e);
    }
}

/// The exit status of a command whose reader went: 128 + SIGPIPE.
pub const READER_GONE: i32 = 141;

fn gone(e: &std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(READER_GONE);
    }
}

/// `println!` through `visible`, ending quietly when the reader has gone (`out`).
macro_rules! say {
    () => { $crate::cli::say::out("\n") };
    ($($arg:tt)*) => {
        $crate::cli::say::out(&format!("{}\n", $crate::cli::say::visible(&format!($($arg)*))))
    };
}

/// `print!` through `visible`, ending quietly when the reader has gone (`out`).
macro_rules! say_part {
    ($($arg:tt)*) => { $crate::cli::say::out(&$crate::cli::say::visible(&format!($($arg)*))) };
}

/// `eprintln!` through `visible`, ending quietly when the reader has gone (`err`).
macro_rules! say_err {
    ($($arg:tt)*) => {
        $crate::cli::say::err(&format!("{}\n", $crate::cli::say::visible(&format!($($arg)*))))
    };
}

pub(crate) use {say, say_err, say_part};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_made_visible_and_lines_kept() {
        assert_eq!(visible("a\tb\nc"), "a\tb\nc");
        assert_eq!(
            visible("\u{1b}]52;c;aGk=\u{7}x\r\u{7f}\u{9b}2J"),
            "^[]52;c;aGk=^Gx^M^?\\u{9b}2J"
        );
        assert!(matches!(visible("plain ✓"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_name_kept_on_its_line_shows_its_newlines_and_tabs() {
        assert_eq!(visible_line("ann\nbob\t\u{1b}x"), "ann^Jbob^I^[x");
        assert_eq!(visible_line("plain ✓"), "plain ✓");
    }

    #[test]
    fn bidirectional_controls_are_made_visible() {
        assert_eq!(
            visible("ok \u{202e}deliaf\u{202c} \u{2066}x\u{2069}\u{200f}"),
            "ok \\u{202e}deliaf\\u{202c} \\u{2066}x\\u{2069}\\u{200f}"
        );
        assert!(
            matches!(visible("שלום مرحبا"), Cow::Borrowed(_)),
            "letters stay"
        );
    }
}
