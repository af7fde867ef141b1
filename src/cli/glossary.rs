//! `gpulab glossary`: the words the lessons use, each in a sentence or two, as the lab's
//! glossary (`?` then `g`) shows them.

use super::say::say;
use crate::course::glossary::TERMS;
use anyhow::Result;

pub fn cmd_glossary() -> Result<()> {
    for t in TERMS {
        say!("{}", t.term);
        for row in wrap(t.means, 72) {
            say!("    {row}");
        }
    }
    Ok(())
}

/// Whole words to rows of at most `width` columns.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut rows = vec![String::new()];
    for word in text.split_whitespace() {
        let row = rows.last_mut().unwrap();
        if !row.is_empty() && row.chars().count() + 1 + word.chars().count() > width {
            rows.push(word.to_string());
        } else {
            if !row.is_empty() {
                row.push(' ');
            }
            row.push_str(word);
        }
    }
    rows
}
