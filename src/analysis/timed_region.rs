//! The lines a kernel times itself: between two reads of the SM clock (`%clock64`,
//! `clock64()`) or the global timer (`%globaltimer`), directly or through a `__device__`
//! helper that reads one. A latency lesson's figure is what happens there, not in the
//! setup around it (lesson 00's hbm rung writes its chain and flushes the L2 with stores
//! that cost far more per request than the chase it times), so the code view opens there.
//!
//! Read from the text as written, not preprocessed: a file may time several variants'
//! loops under `#if`, one after another. Clock reads come in groups (a start: `g0 = …;
//! t0 = …;`, then an end: `t1 = …; g1 = …;`). Where the kernel subtracts one clock read's
//! variable from another's (`t1 - t0`), the groups those two lie in are a start and its end,
//! the innermost such pairs where they nest: an extra read, or a difference multiplied by
//! 0, cannot move the timed lines off the ones the figure times. Elsewhere the groups in
//! file order pair up, start then end. What lies between a start and its end is timed.

use std::ops::{Range, RangeInclusive};

/// The line ranges (from 1) between each start of a timing and its end, from the text.
pub fn timed_ranges(source: &str) -> Vec<RangeInclusive<u32>> {
    timed_ranges_reading(source, &[])
}

/// The line ranges (from 1) between each start of a timing and its end, where the lines
/// `compiled` (from 1) read a clock too: those the compiled kernel reads one on, which the
/// text may hide (an `asm` string split in two, or built by a macro).
pub fn timed_ranges_reading(source: &str, compiled: &[u32]) -> Vec<RangeInclusive<u32>> {
    let lines: Vec<&str> = source.lines().map(code_of).collect();
    let clock: Vec<bool> = (lines.iter().enumerate())
        .map(|(i, l)| reads_clock(l) || compiled.contains(&(i as u32 + 1)))
        .collect();
    let helpers = clock_helpers(&lines, &clock);
    let reads: Vec<usize> = (0..lines.len())
        .filter(|&i| !helpers.iter().any(|h| h.body.contains(&i)))
        .filter(|&i| clock[i] || helpers.iter().any(|h| calls(lines[i], &h.name)))
        .collect();
    // Reads on neighbouring lines (blank lines between them aside) are one group.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &i in &reads {
        match groups.last_mut() {
            Some(g) if lines[g.1 + 1..i].iter().all(|l| l.trim().is_empty()) => g.1 = i,
            _ => groups.push((i, i)),
        }
    }
    let between = |a: (usize, usize), b: (usize, usize)| (a.1 as u32 + 2)..=(b.0 as u32);
    let mut ranges: Vec<RangeInclusive<u32>> = match subtracted(&lines, &reads, &groups) {
        pairs if !pairs.is_empty() => pairs
            .into_iter()
            .filter(|(a, b)| a.1 + 1 < b.0)
            .map(|(a, b)| between(a, b))
            .collect(),
        _ => groups
            .chunks_exact(2)
            .filter(|p| p[0].1 + 1 < p[1].0)
            .map(|p| between(p[0], p[1]))
            .collect(),
    };
    // A `__device__` function called on timed lines and nowhere else runs only while the
    // clock runs: its body is timed too (a chase written as a helper). One called outside
    // them as well is not: its untimed calls would count as timed.
    let functions = device_functions(&lines, |_| true);
    loop {
        let timed = |i: usize| ranges.iter().any(|r| r.contains(&(i as u32 + 1)));
        let more: Vec<RangeInclusive<u32>> = (functions.iter())
            .filter(|f| !timed(f.body.start))
            .filter(|f| {
                let mut sites = (0..lines.len())
                    .filter(|i| !f.body.contains(i) && calls(lines[*i], &f.name))
                    .peekable();
                sites.peek().is_some() && sites.all(timed)
            })
            .map(|f| (f.body.start as u32 + 1)..=(f.body.end as u32))
            .collect();
        if more.is_empty() {
            return ranges;
        }
        ranges.extend(more);
    }
}

/// The groups of clock reads the kernel subtracts one from another (`t1 - t0`, `t1 -= t0`),
/// start then end, the innermost where pairs nest, in file order: none where no line
/// subtracts the variable one read assigns from another's.
fn subtracted(
    lines: &[&str],
    reads: &[usize],
    groups: &[(usize, usize)],
) -> Vec<((usize, usize), (usize, usize))> {
    // The variable each read assigns (`unsigned long long t0 = clock64();`), and its group.
    let mut assigned: Vec<(&str, (usize, usize))> = (reads.iter())
        .filter_map(|&i| {
            let (lhs, _) = lines[i].split_once('=')?;
            let g = *groups.iter().find(|g| (g.0..=g.1).contains(&i))?;
            Some((last_identifier(lhs)?, g))
        })
        .collect();
    // A copy of a read's variable (`c0 = t0;`, `c0 = t0, n0 = g0;`) stands for the read.
    for _ in 0..2 {
        for l in lines {
            let t = tokens(l);
            for eq in (1..t.len().saturating_sub(1)).filter(|&i| t[i] == "=") {
                let (lhs, rhs) = (t[eq - 1], t[eq + 1]);
                if !matches!(t.get(eq + 2), None | Some(&";") | Some(&",")) {
                    continue;
                }
                if let Some(g) = assigned.iter().find(|(n, _)| *n == rhs).map(|(_, g)| *g)
                    && !assigned.contains(&(lhs, g))
                {
                    assigned.push((lhs, g));
                }
            }
        }
    }
    let groups_of = |v: &str| -> Vec<(usize, usize)> {
        (assigned.iter().filter(|(n, _)| *n == v))
            .map(|(_, g)| *g)
            .collect()
    };
    // A helper that returns the difference of two of its parameters (`span(from, to)`) is
    // a subtraction of the arguments it is called with.
    let differences = differences(lines);
    let mut pairs: Vec<((usize, usize), (usize, usize))> = Vec::new();
    for l in lines {
        let tokens = tokens(l);
        let mut subtracted: Vec<(&str, &str)> = (tokens.windows(3))
            .filter(|w| w[1] == "-" || w[1] == "-=")
            .map(|w| (w[0], w[2]))
            .collect();
        for (name, end, start) in &differences {
            if calls(l, name) {
                subtracted.extend(
                    call_args(l, name).and_then(|a| Some((*a.get(*end)?, *a.get(*start)?))),
                );
            }
        }
        for (end_var, start_var) in subtracted {
            // `end - start`: each read of the start pairs with the first read of the end
            // after it (a file may time several variants' loops under `#if`, each its own
            // reads of the same two variables, and subtract them once).
            let ends = groups_of(end_var);
            for start in groups_of(start_var) {
                let Some(&end) = ends.iter().filter(|e| e.0 > start.1).min() else {
                    continue;
                };
                if !pairs.contains(&(start, end)) {
                    pairs.push((start, end));
                }
            }
        }
    }
    // A pair around another times more than the figure it makes: a difference of 0.
    let holds = |o: &((usize, usize), (usize, usize)), p: &((usize, usize), (usize, usize))| {
        o != p && o.0.0 <= p.0.0 && p.1.1 <= o.1.1
    };
    let mut inner: Vec<_> = (pairs.iter())
        .filter(|o| !pairs.iter().any(|p| holds(o, p)))
        .copied()
        .collect();
    inner.sort();
    inner
}

/// The `__device__` helpers whose body subtracts one parameter from another: each name,
/// and the positions of the parameter subtracted from and the one subtracted.
fn differences(lines: &[&str]) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for f in device_functions(lines, |_| true) {
        let signature: String = lines[f.body.clone()].concat();
        let Some(params) = call_args(&signature, &f.name) else {
            continue;
        };
        let body = &lines[f.body.start..f.body.end];
        let found = body.iter().flat_map(|l| {
            let t = tokens(l);
            (t.windows(3))
                .filter(|w| w[1] == "-" || w[1] == "-=")
                .filter_map(|w| {
                    let at = |p: &str| params.iter().position(|x| *x == p);
                    Some((at(w[0])?, at(w[2])?))
                })
                .collect::<Vec<_>>()
        });
        if let Some((end, start)) = found.into_iter().next() {
            out.push((f.name.clone(), end, start));
        }
    }
    out
}

/// The last identifier of each argument of the first call of `name` in `code` (a
/// parameter's name in a signature), None where the call's parentheses do not close.
fn call_args<'a>(code: &'a str, name: &str) -> Option<Vec<&'a str>> {
    let at = code
        .find(&format!("{name}("))
        .or_else(|| code.find(&format!("{name} (")))?;
    let open = at + code[at..].find('(')? + 1;
    let mut depth = 0;
    let mut args = Vec::new();
    let mut from = open;
    for (i, c) in code[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                args.push(last_identifier(&code[from..open + i]).unwrap_or(""));
                return Some(args);
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(last_identifier(&code[from..open + i]).unwrap_or(""));
                from = open + i + 1;
            }
            _ => {}
        }
    }
    None
}

/// A line's identifiers and operators, in order (`-=` one token, other punctuation one
/// character each).
fn tokens(code: &str) -> Vec<&str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        let len = if ident(c) {
            rest.find(|c: char| !ident(c)).unwrap_or(rest.len())
        } else if rest.starts_with("-=") {
            2
        } else {
            c.len_utf8()
        };
        if !c.is_whitespace() {
            out.push(&rest[..len]);
        }
        rest = &rest[len..];
    }
    out
}

/// A `__device__` function that reads a clock, and its lines (from 0).
struct Helper {
    name: String,
    body: std::ops::Range<usize>,
}

/// The helpers that read a clock.
fn clock_helpers(lines: &[&str], clock: &[bool]) -> Vec<Helper> {
    device_functions(lines, |body| clock[body].iter().any(|&c| c))
}

/// The `__device__` functions whose lines `keep` holds: a function's first line names it,
/// and its body ends where the braces it opens close (on its first line, for a function
/// written on one); a declaration (`;` before any `{`) has none.
fn device_functions(lines: &[&str], keep: impl Fn(Range<usize>) -> bool) -> Vec<Helper> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !l.contains("__device__") {
            continue;
        }
        // The name is before the first `(`, on the line of `__device__` or the next.
        let Some(head) = [Some(l), lines.get(i + 1)]
            .into_iter()
            .flatten()
            .find(|h| h.contains('('))
        else {
            continue;
        };
        let Some(name) = head.split('(').next().and_then(last_identifier) else {
            continue;
        };
        let Some(end) = body_end(lines, i) else {
            continue;
        };
        if keep(i..end) {
            out.push(Helper {
                name: name.to_string(),
                body: i..end,
            });
        }
    }
    out
}

/// The line after the one where the braces a function opens from line `first` close; None
/// for a declaration. Unbalanced to the end of the file: the file's end.
fn body_end(lines: &[&str], first: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut opened = false;
    for (j, l) in lines.iter().enumerate().skip(first) {
        for c in l.chars() {
            match c {
                '{' => (depth, opened) = (depth + 1, true),
                '}' if opened => depth -= 1,
                ';' if !opened => return None,
                _ => {}
            }
            if opened && depth == 0 {
                return Some(j + 1);
            }
        }
    }
    Some(lines.len())
}

/// A line's code: what comes before a `//` comment.
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or(line)
}

fn reads_clock(code: &str) -> bool {
    code.contains("%clock")
        || code.contains("%globaltimer")
        || calls(code, "clock64")
        || calls(code, "clock")
}

/// Whether `code` calls `name`: the name, not the end of a longer one, then `(`.
fn calls(code: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].trim_start();
        !before.is_some_and(ident) && after.starts_with('(')
    })
}

/// The last C identifier in `s`.
fn last_identifier(s: &str) -> Option<&str> {
    let s = s.trim_end();
    let start = s
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let id = &s[start..];
    (!id.is_empty() && !id.starts_with(|c: char| c.is_ascii_digit())).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "\
__device__ unsigned long long now()
{
    unsigned long long t;
    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t));
    return t;
}
extern \"C\" __global__ void k(unsigned* p, unsigned long long* c)
{
#if LEVEL == 1
    p[threadIdx.x] = 1;   // setup, line 10
    t0 = now();
    x = p[x];             // timed, line 12
    t1 = now();
#else
    flush(p);             // setup, line 15
    t0 = now();

    for (;;) x = p[x];    // timed, line 18
    t1 = clock64();
#endif
    // now() is not called here
}
";

    #[test]
    fn the_lines_between_a_start_and_its_end_are_timed() {
        assert_eq!(timed_ranges(KERNEL), [12..=12, 17..=18]);
    }

    #[test]
    fn a_helper_called_only_on_timed_lines_is_timed_and_one_called_outside_them_too_is_not() {
        let kernel = "\
__device__ __forceinline__ unsigned step(unsigned p)
{
    return chain[p];      // line 3
}
__device__ unsigned walk(unsigned p)
{
    return chain[p + 1];  // line 7
}
__global__ void k()
{
    p = walk(p);          // untimed, line 11
    t0 = clock64();
    p = step(p);          // timed, line 13
    p = walk(p);
    t1 = clock64();
}
";
        assert_eq!(timed_ranges(kernel), [13..=14, 1..=4]);
    }

    #[test]
    fn a_chain_of_helpers_each_written_on_one_line_is_timed_where_the_chain_is_called() {
        let kernel = "\
__device__ unsigned scratch[4];
__device__ __noinline__ unsigned load_at(const unsigned* a, unsigned x) { return a[x]; }
__device__ __noinline__ unsigned step(const unsigned* a, unsigned x) { return load_at(a, x); }
__global__ void k()
{
    t0 = clock64();
    x = step(a, x);       // timed, line 7
    t1 = clock64();
}
";
        assert_eq!(timed_ranges(kernel), [7..=7, 3..=3, 2..=2]);
    }

    #[test]
    fn a_clock_read_the_text_hides_is_found_on_the_line_the_compiled_kernel_reads_it() {
        // Line 3's read is an asm string split in two, and line 4 reads a decoy that
        // times nothing: only the compiled kernel's lines (3 and 6) say what is timed.
        let kernel = "\
__global__ void k()
{
    asm volatile(\"mov.u64 %0, %%clo\" \"ck64;\" : \"=l\"(t0));
    d0 = clock64(); d1 = clock64();
    p = chain[p];         // timed, line 5
    asm volatile(\"mov.u64 %0, %%clo\" \"ck64;\" : \"=l\"(t1));
    c[0] = t1 - t0;
}
";
        assert_eq!(timed_ranges(kernel), []);
        assert_eq!(timed_ranges_reading(kernel, &[3, 4, 6]), [5..=5]);
    }

    #[test]
    fn the_reads_a_difference_is_made_of_pair_up_whatever_reads_lie_around_them() {
        // Extra reads before and after shift the file-order pairing onto the lines after
        // the real end (line 9), and a difference multiplied by 0 names an outer pair: the
        // innermost difference's reads are the start and the end.
        let kernel = "\
__global__ void k()
{
    w0 = clock64();
    setup();
    unsigned long long g0 = now(), t0 = clock64();
    q = self[q];          // timed, line 6
    t1 = clock64();
    g1 = clock64();
    p = chain[p];         // after the end, line 9
    w1 = clock64();
    c[0] = t1 - t0;
    n[0] = g1 - g0 + 0 * (w1 - w0);
}
";
        assert_eq!(timed_ranges(kernel), [6..=6]);
        // `-=` subtracts too; a sum of reads pairs nothing, and file order decides.
        let kernel = "\
__global__ void k()
{
    t0 = clock64();
    q = self[q];          // timed, line 4
    t1 = clock64();
    t1 -= t0;
}
";
        assert_eq!(timed_ranges(kernel), [4..=4]);
        assert_eq!(tokens("a-=b - c"), ["a", "-=", "b", "-", "c"]);
        // Reads of the same two variables in each of two variants, subtracted once.
        let kernel = "\
__global__ void k()
{
#if A
    t0 = clock64();
    q = a[q];             // line 5
    t1 = clock64();
#else
    t0 = clock64();
    q = b[q];             // line 9
    t1 = clock64();
#endif
    c[0] = t1 - t0;
}
";
        assert_eq!(timed_ranges(kernel), [5..=5, 9..=9]);
    }

    #[test]
    fn a_difference_through_a_copy_or_a_helper_pairs_its_reads_too() {
        // The reads around the self-loop are subtracted by a helper and through a copy; the
        // outer ones, by file order, would have made the chase after them look timed.
        let kernel = "\
__device__ __forceinline__ unsigned long long
span(unsigned long long from, unsigned long long to)
{
    return to - from;
}
__global__ void k()
{
    w0 = clock();
    setup();
    t0 = clock64();
    q = self[q];          // timed, line 11
    t1 = clock64();
    p = chain[p];         // after the end, line 13
    w1 = clock();
    const unsigned long long c0 = t0, e1 = t1;
    c[0] = span(c0, e1) + 0 * span(w0, w1);
}
";
        assert_eq!(timed_ranges(kernel), [11..=11]);
        assert_eq!(
            call_args("x = span(a, f(b, c)) + 1;", "span"),
            Some(vec!["a", ""])
        );
    }

    #[test]
    fn a_kernel_that_reads_no_clock_times_nothing() {
        assert!(timed_ranges("extern \"C\" __global__ void k() { }\n").is_empty());
        // A name that only ends in a helper's is no call of it.
        assert!(!calls("x = not_now();", "now"));
        assert!(calls("t0 = now ();", "now"));
    }
}
