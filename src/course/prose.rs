//! The course's prose as its authors write it: hard-wrapped in the YAML at whatever width
//! their editor had. Wrapped again as it stands, at another width, each of those lines ends
//! early ("…fewer threads than" / "elements, so"). `reflow` joins a paragraph's lines first,
//! so that the lab's panes and the CLI wrap whole paragraphs; what is laid out by line keeps
//! its lines.

/// `text` with each paragraph on one line, ready to be wrapped at any width.
///
/// A plain line (not indented) joins the line before it when that one is plain too, or is a
/// list item. These keep their breaks: a blank line (it stays, between paragraphs); an
/// indented line (a table drawn with spaces, an aligned column); a table row (`|`); a line
/// in a code fence (```` ``` ````) and the fence itself. A list item (`- `, `* `, `+ `,
/// `1. `, `1) `) starts a line of its own, and its lines indented to its text join it.
pub fn reflow(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    // The line being joined, and the indent a line must have to join it.
    let mut open: Option<(String, usize)> = None;
    let mut fenced = false;
    for line in text.lines() {
        let line = line.trim_end();
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if fenced || body.starts_with("```") {
            out.extend(open.take().map(|(l, _)| l));
            fenced ^= body.starts_with("```");
            out.push(line.to_string());
            continue;
        }
        if body.is_empty() {
            out.extend(open.take().map(|(l, _)| l));
            out.push(String::new());
            continue;
        }
        let item = list_marker(body);
        if let Some((joined, at)) = open.as_mut()
            && item.is_none()
            && !body.starts_with('|')
            && indent == *at
        {
            joined.push(' ');
            joined.push_str(body);
            continue;
        }
        out.extend(open.take().map(|(l, _)| l));
        match item {
            Some(marker) => open = Some((line.to_string(), indent + marker)),
            None if indent == 0 && !body.starts_with('|') => open = Some((line.to_string(), 0)),
            None => out.push(line.to_string()),
        }
    }
    out.extend(open.map(|(l, _)| l));
    out.join("\n")
}

/// How wide a list item's marker is with the space after it (`- ` is 2, `12. ` is 4);
/// None for a line that is not a list item.
fn list_marker(body: &str) -> Option<usize> {
    if ["- ", "* ", "+ "].iter().any(|m| body.starts_with(m)) {
        return Some(2);
    }
    let digits = body.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &body[digits..];
    (digits > 0 && (rest.starts_with(". ") || rest.starts_with(") "))).then_some(digits + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paragraphs_lines_are_joined_and_a_blank_line_keeps_its_break() {
        let text = "copy_mine copies n floats with a fixed grid of far fewer threads than\n\
                    elements, so each thread copies a run.\n\
                    \n\
                    Make it coalesce.\n";
        assert_eq!(
            reflow(text),
            "copy_mine copies n floats with a fixed grid of far fewer threads than \
             elements, so each thread copies a run.\n\nMake it coalesce."
        );
    }

    #[test]
    fn indented_lines_tables_and_code_keep_their_breaks() {
        let text = "The ladder:\n\
                    \x20 register    1 cycle\n\
                    \x20 shared     20 cycles\n\
                    | level | cycles |\n\
                    | L2    | 200    |\n\
                    After the table,\n\
                    a sentence.\n\
                    ```\n\
                    int i = 0;\n\
                    i += 1;\n\
                    ```\n\
                    and on.";
        assert_eq!(
            reflow(text),
            "The ladder:\n  register    1 cycle\n  shared     20 cycles\n\
             | level | cycles |\n| L2    | 200    |\nAfter the table, a sentence.\n\
             ```\nint i = 0;\ni += 1;\n```\nand on."
        );
    }

    #[test]
    fn list_items_keep_their_lines_and_take_their_own_continuations() {
        let text = "Two ways:\n\
                    - pad the tile by one\n\
                    \x20 column, or\n\
                    - swizzle the index.\n\
                    1. first, with a long\n\
                    \x20  second line\n\
                    2) second\n\
                    Then a plain line.";
        assert_eq!(
            reflow(text),
            "Two ways:\n- pad the tile by one column, or\n- swizzle the index.\n\
             1. first, with a long second line\n2) second\nThen a plain line."
        );
    }

    #[test]
    fn what_needs_no_joining_is_left_as_it_is() {
        assert_eq!(reflow(""), "");
        assert_eq!(reflow("one line"), "one line");
        assert_eq!(reflow("a\n\n\nb"), "a\n\n\nb");
        assert_eq!(reflow("trailing  \nspaces"), "trailing spaces");
        // A number that starts a sentence is no list item unless a `.` or `)` and a space
        // follow it.
        assert_eq!(reflow("over\n2x faster"), "over 2x faster");
    }
}
