//! Text from a lesson pack (titles, tasks, hints, variant names, compile errors quoting the
//! pack's source) is printed by the CLI through one function, `visible`, so that a pack
//! cannot reach the terminal with control sequences: an escape that retitles the window,
//! erases lines, writes the clipboard (OSC 52) or draws a fake "all checks passed". The
//! `say!` macros print through it; every print of the CLI uses them.

use std::borrow::Cow;

/// `text` with every control character made visible: C0 controls and DEL in caret notation
/// (ESC as `^[`, carriage return as `^M`), C1 controls as `\u{9b}`; newlines and tabs stay.
pub fn visible(text: &str) -> Cow<'_, str> {
    let shown = |c: char| c == '\n' || c == '\t' || !c.is_control();
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

/// `println!` through `visible`.
macro_rules! say {
    () => { println!() };
    ($($arg:tt)*) => { println!("{}", $crate::cli::say::visible(&format!($($arg)*))) };
}

/// `print!` through `visible`.
macro_rules! say_part {
    ($($arg:tt)*) => { print!("{}", $crate::cli::say::visible(&format!($($arg)*))) };
}

/// `eprintln!` through `visible`.
macro_rules! say_err {
    ($($arg:tt)*) => { eprintln!("{}", $crate::cli::say::visible(&format!($($arg)*))) };
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
}
