//! Snapshot files in insta's `.snap` format, so that `cargo insta review` can show and accept
//! them: a `---` header block with `source:` and `expression:`, a closing `---`, then the
//! screen. Text is compared as insta compares it: trailing blanks at the end ignored, CRLF
//! read as LF.

/// A `.snap` file's text for `screen`, drawn from the lesson file `source` by `expression`.
pub fn serialize(source: &str, expression: &str, screen: &str) -> String {
    format!(
        "---\nsource: {}\nexpression: {}\n---\n{}\n",
        yaml_scalar(source),
        yaml_scalar(expression),
        normalize(screen)
    )
}

/// The snapshot in a `.snap` file's text: what follows the header block, or the whole text
/// when it has none (insta's older format is not written here, so none is read).
pub fn contents(file: &str) -> String {
    let mut lines = file.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return normalize(file);
    }
    for line in lines.by_ref() {
        if line.trim_end() == "---" {
            break;
        }
    }
    normalize(&lines.collect::<Vec<_>>().join("\n"))
}

/// A screen as insta keeps it.
pub fn normalize(text: &str) -> String {
    text.trim_end().replace("\r\n", "\n")
}

/// A value that YAML reads back as the same string: plain when it is safely plain, else a
/// double-quoted string (JSON's quoting is YAML's).
fn yaml_scalar(s: &str) -> String {
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " -_./".contains(c))
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && !s.ends_with(' ');
    if plain {
        s.to_string()
    } else {
        serde_json::Value::from(s).to_string()
    }
}

/// Lines of context shown around the first change, and changed lines shown of each side.
const CONTEXT: usize = 2;
const SHOWN: usize = 8;

/// A short unified diff of the first differences between `old` and `new`: one hunk from the
/// first line that differs to the last, each side cut at a few lines.
pub fn short_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = (0..room)
        .take_while(|i| a[a.len() - 1 - i] == b[b.len() - 1 - i])
        .count();
    let (gone, came) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let start = prefix.saturating_sub(CONTEXT);
    let before = &a[start..prefix];
    let whole = gone.len() <= SHOWN && came.len() <= SHOWN;
    let after: &[&str] = if whole {
        let end = (a.len() - suffix + CONTEXT).min(a.len());
        &a[a.len() - suffix..end]
    } else {
        &[]
    };
    let (g, c) = (gone.len().min(SHOWN), came.len().min(SHOWN));
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    let ctx = before.len() + after.len();
    out += &format!(
        "@@ -{},{} +{},{} @@\n",
        start + 1,
        ctx + g,
        start + 1,
        ctx + c
    );
    for l in before {
        out += &format!(" {l}\n");
    }
    for l in &gone[..g] {
        out += &format!("-{l}\n");
    }
    for l in &came[..c] {
        out += &format!("+{l}\n");
    }
    for l in after {
        out += &format!(" {l}\n");
    }
    if !whole {
        let more = gone.len() - g + came.len() - c;
        out += &format!("… and {more} more changed line(s)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_the_screen_it_was_written_from() {
        let screen = "┌ a ┐\n│ b │\n\n\n";
        let file = serialize("lessons/01-x.yaml", "gpulab render x --width 80", screen);
        assert!(file.starts_with("---\nsource: lessons/01-x.yaml\nexpression: gpulab render x"));
        assert_eq!(contents(&file), "┌ a ┐\n│ b │");
        assert_eq!(contents(&file.replace('\n', "\r\n")), "┌ a ┐\n│ b │");
    }

    #[test]
    fn an_odd_value_is_quoted() {
        let file = serialize("a: b", "x", "y");
        assert!(file.contains("source: \"a: b\"\n"), "{file}");
    }

    #[test]
    fn the_diff_shows_the_first_change_with_context() {
        let old = "1\n2\n3\n4\n5\n6";
        let new = "1\n2\n3\nfour\n5\n6";
        let d = short_diff(old, new, "a.snap", "a.snap.new");
        assert_eq!(
            d,
            "--- a.snap\n+++ a.snap.new\n@@ -2,5 +2,5 @@\n 2\n 3\n-4\n+four\n 5\n 6\n"
        );
    }

    #[test]
    fn a_long_change_is_cut() {
        let old: String = (0..40).map(|i| format!("{i}\n")).collect();
        let new: String = (0..40).map(|i| format!("x{i}\n")).collect();
        let d = short_diff(&old, &new, "a", "b");
        assert!(d.ends_with("… and 64 more changed line(s)\n"), "{d}");
        assert_eq!(d.lines().filter(|l| l.starts_with('-')).count(), 9);
    }
}
