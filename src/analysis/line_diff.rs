//! A line diff (longest common subsequence), to show a learner who passed how the
//! exercise's solution differs from their kernel. Kernels are short, so the quadratic table
//! costs nothing.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    Same(String),
    /// Only in the first text.
    Removed(String),
    /// Only in the second text.
    Added(String),
}

/// How to turn `a` into `b`, line by line; trailing blanks are ignored.
pub fn diff(a: &str, b: &str) -> Vec<DiffLine> {
    let a: Vec<&str> = a.lines().map(str::trim_end).collect();
    let b: Vec<&str> = b.lines().map(str::trim_end).collect();
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(DiffLine::Same(a[i].to_string()));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(DiffLine::Removed(a[i].to_string()));
            i += 1;
        } else {
            out.push(DiffLine::Added(b[j].to_string()));
            j += 1;
        }
    }
    out
}

/// Whether the two texts differ beyond trailing blanks.
pub fn differs(d: &[DiffLine]) -> bool {
    d.iter().any(|l| !matches!(l, DiffLine::Same(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DiffLine::*;

    #[test]
    fn a_changed_line_is_removed_then_added_and_the_rest_kept() {
        let d = diff("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!(
            d,
            vec![
                Same("a".into()),
                Removed("b".into()),
                Added("B".into()),
                Same("c".into()),
                Added("d".into())
            ]
        );
        assert!(differs(&d));
        assert!(!differs(&diff("x  \ny", "x\ny\n")));
    }
}
