//! The header of a kernel file tried on its own (`gpulab try FILE.cu`): a comment that says
//! how to launch the kernel and what to give it, in the words of a lesson file, so the
//! file becomes a lesson with no YAML to write (docs/try.md has the grammar).
//!
//! ```text
//! // gpulab: n=1<<24 cpu.n=4096 grid=ceil_div(n,256) block=256
//! // gpulab: in:f32[n]=random out:f32[n] bytes=2*n*4 check=copy(in,out)
//! ```
//!
//! Every line comment that starts `gpulab:` belongs to the header; its items are separated
//! by blanks (a blank inside brackets or parentheses does not separate). Each item maps onto
//! one key of a lesson: `NAME=EXPR` a `problem` size, `cpu.NAME=EXPR` a `problem_cpu` size,
//! `NAME:TYPE[LEN]` an output buffer and `NAME:TYPE[LEN]=INIT` an input, `grid=`, `block=`
//! and `smem=` the launch, `kernel=` and `args=` the variant, `bytes=`, `flops=` and
//! `peak=` the metrics, `check=` a built-in reference, `trace=` the traced blocks. Every
//! item keeps its place, so a problem with it is reported at `file:line:col`.

use crate::course::CourseError;
use crate::course::expr::is_identifier;
use crate::model::ElemType;

/// A 1-based place in a header: a line of the kernel file (or the number of a `--header`
/// flag) and a column in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct At {
    pub line: usize,
    pub col: usize,
}

impl At {
    /// `n` characters further along the same line.
    pub fn plus(self, n: usize) -> At {
        At {
            line: self.line,
            col: self.col + n,
        }
    }
}

/// A value as written, and where its first character is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub text: String,
    pub at: At,
}

/// How an input buffer is filled (`=random`, `=random(0,10)`, `=seq`, `=zeros`, `=2.5`).
#[derive(Debug, Clone, PartialEq)]
pub enum Fill {
    Random(Option<(f64, f64)>),
    Seq,
    Zeros,
    Const(f64),
    /// An output: poisoned before every launch, compared after it.
    Output,
}

/// `NAME:TYPE[LEN]=INIT`.
#[derive(Debug, Clone, PartialEq)]
pub struct BufferItem {
    pub name: Written,
    pub ty: ElemType,
    pub ty_at: At,
    pub len: Written,
    pub fill: Fill,
    pub fill_at: At,
    /// The item as written, to compare two files' headers and to say them back.
    pub text: String,
}

/// `check=copy(in,out)` or `check=transpose(in,out,rows,cols)`: a built-in reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Builtin {
    Copy {
        from: Written,
        to: Written,
    },
    Transpose {
        from: Written,
        to: Written,
        rows: Written,
        cols: Written,
    },
}

/// One `args=` entry: a buffer's name or an integer expression, optionally typed
/// (`i64:n`, `u32:n`, `u64:n`, `f32:0.5`).
#[derive(Debug, Clone, PartialEq)]
pub struct ArgItem {
    pub ty: Option<String>,
    pub value: Written,
}

/// What one header (a file's, or the `--header` flags') gives. Keys left out are `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    /// The file (or `--header`) the places are in.
    pub file: String,
    /// Where the header starts (its first `gpulab:`); None when there is none.
    pub start: Option<At>,
    /// The items as written, in order, to say the header back.
    pub items: Vec<String>,
    pub sizes: Vec<(Written, Written)>,
    pub cpu_sizes: Vec<(Written, Written)>,
    pub buffers: Vec<BufferItem>,
    pub grid: Option<Vec<Written>>,
    pub block: Option<Vec<Written>>,
    pub smem: Option<Written>,
    pub kernel: Option<Written>,
    pub args: Option<(At, Vec<ArgItem>)>,
    pub bytes: Option<Written>,
    pub flops: Option<Written>,
    /// `peak=none` (false) or `peak=copy` (true).
    pub peak: Option<(bool, At)>,
    pub check: Option<(Builtin, At)>,
    pub trace: Option<(u32, At)>,
    /// The size names given so far (`size:NAME`, `cpu:NAME`): a size given twice is found
    /// without a scan of all before it (a header of 150,000 sizes took over a minute).
    named: std::collections::HashSet<String>,
}

/// The keys an item may have, besides sizes (`NAME=`) and buffers (`NAME:`).
pub const KEYS: [&str; 10] = [
    "grid", "block", "smem", "kernel", "args", "bytes", "flops", "peak", "check", "trace",
];

/// The header of a kernel file's text: every line comment that starts `gpulab:`. A file
/// without one gives a header with no `start` and nothing in it.
pub fn parse(file: &str, text: &str) -> Result<Header, Vec<CourseError>> {
    let mut h = Header {
        file: file.to_string(),
        ..Header::default()
    };
    let mut errs = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let Some((col, rest)) = header_line(line) else {
            continue;
        };
        let at = At { line: k + 1, col };
        h.start.get_or_insert(at);
        // The place just before the items' text, which starts after `gpulab:`.
        read_items(&mut h, rest, at.plus("gpulab:".len() - 1), &mut errs);
    }
    if errs.is_empty() { Ok(h) } else { Err(errs) }
}

/// The `--header` flags, each read as one more header line; a place in one is its number
/// (from 1) and column, in a "file" named `--header`.
pub fn parse_flags(flags: &[String]) -> Result<Header, Vec<CourseError>> {
    let mut h = Header {
        file: "--header".into(),
        ..Header::default()
    };
    let mut errs = Vec::new();
    for (k, flag) in flags.iter().enumerate() {
        h.start.get_or_insert(At {
            line: k + 1,
            col: 1,
        });
        read_items(
            &mut h,
            flag,
            At {
                line: k + 1,
                col: 0,
            },
            &mut errs,
        );
    }
    if errs.is_empty() { Ok(h) } else { Err(errs) }
}

/// The column of `gpulab:` and the text after it, when `line` is a header line: `//`, blanks,
/// `gpulab:`.
fn header_line(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start();
    let after = trimmed.strip_prefix("//")?;
    let body = after.trim_start();
    let rest = body.strip_prefix("gpulab:")?;
    let col = line.chars().count() - body.chars().count() + 1;
    Some((col, rest))
}

/// Split `text` (which starts just after `before`) into items at the blanks outside
/// brackets and parentheses, each with the place of its first character.
fn split_items(text: &str, before: At) -> Vec<Written> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut start = before;
    for (k, c) in text.chars().enumerate() {
        let at = before.plus(k + 1);
        match c {
            c if c.is_whitespace() && depth <= 0 => {
                if !cur.is_empty() {
                    out.push(Written {
                        text: std::mem::take(&mut cur),
                        at: start,
                    });
                }
                continue;
            }
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if cur.is_empty() {
            start = at;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(Written {
            text: cur,
            at: start,
        });
    }
    out
}

/// Split `text` at the commas outside brackets and parentheses, each part trimmed, with its
/// place.
pub fn split_commas(text: &str, at: At) -> Vec<Written> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut start = 0usize;
    for (k, c) in text.chars().enumerate() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth <= 0 => {
                out.push(trimmed(&cur, at.plus(start)));
                cur.clear();
                start = k + 1;
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(trimmed(&cur, at.plus(start)));
    out
}

fn trimmed(s: &str, at: At) -> Written {
    let lead = s.chars().take_while(|c| c.is_whitespace()).count();
    Written {
        text: s.trim().to_string(),
        at: at.plus(lead),
    }
}

fn read_items(h: &mut Header, text: &str, before: At, errs: &mut Vec<CourseError>) {
    for item in split_items(text, before) {
        h.items.push(item.text.clone());
        if let Err((at, message)) = read_item(h, &item) {
            errs.push(CourseError {
                file: h.file.clone(),
                line: at.line,
                col: at.col,
                message,
            });
        }
    }
}

type ItemError = (At, String);

fn read_item(h: &mut Header, item: &Written) -> Result<(), ItemError> {
    let t = &item.text;
    let eq = t.find('=');
    let colon = t.find(':');
    // `NAME:TYPE[..]`: a colon before any `=`.
    if let Some(c) = colon
        && eq.is_none_or(|e| c < e)
        && is_identifier(&t[..c])
    {
        let b = buffer(item, c)?;
        if h.buffers.iter().any(|o| o.name.text == b.name.text) {
            return Err((item.at, format!("buffer `{}` is given twice", b.name.text)));
        }
        h.buffers.push(b);
        return Ok(());
    }
    let Some(eq) = eq else {
        return Err((item.at, not_an_item(t)));
    };
    let key = &t[..eq];
    let value = Written {
        text: t[eq + 1..].to_string(),
        at: item.at.plus(key.chars().count() + 1),
    };
    if value.text.is_empty() {
        return Err((item.at, format!("`{key}=` has no value")));
    }
    if let Some(name) = key.strip_prefix("cpu.") {
        if !is_identifier(name) {
            return Err((
                item.at,
                format!("`{key}`: a CPU size is `cpu.NAME=EXPR`, NAME a size"),
            ));
        }
        let name = Written {
            text: name.to_string(),
            at: item.at.plus(4),
        };
        return push_size((&mut h.cpu_sizes, &mut h.named), name, value, "CPU size");
    }
    if !is_identifier(key) {
        return Err((item.at, not_an_item(t)));
    }
    let at = item.at;
    let twice = || (at, format!("`{key}=` is given twice in one header"));
    match key {
        "grid" | "block" => {
            let dims = split_commas(&value.text, value.at);
            if dims.len() > 3 || dims.iter().any(|d| d.text.is_empty()) {
                return Err((
                    value.at,
                    format!(
                        "`{key}=` is 1 to 3 expressions (x,y,z), not `{}`",
                        value.text
                    ),
                ));
            }
            let slot = if key == "grid" {
                &mut h.grid
            } else {
                &mut h.block
            };
            if slot.replace(dims).is_some() {
                return Err(twice());
            }
        }
        "smem" | "bytes" | "flops" => {
            let slot = match key {
                "smem" => &mut h.smem,
                "bytes" => &mut h.bytes,
                _ => &mut h.flops,
            };
            if slot.replace(value).is_some() {
                return Err(twice());
            }
        }
        "kernel" => {
            if !is_identifier(&value.text) {
                return Err((value.at, format!("`kernel={}` is not a name", value.text)));
            }
            if h.kernel.replace(value).is_some() {
                return Err(twice());
            }
        }
        "args" => {
            let list = split_commas(&value.text, value.at)
                .into_iter()
                .map(arg_item)
                .collect::<Result<Vec<_>, _>>()?;
            if h.args.replace((value.at, list)).is_some() {
                return Err(twice());
            }
        }
        "peak" => {
            let copy = match value.text.as_str() {
                "copy" => true,
                "none" => false,
                other => {
                    return Err((
                        value.at,
                        format!("`peak=` is `copy` or `none`, not `{other}`"),
                    ));
                }
            };
            if h.peak.replace((copy, value.at)).is_some() {
                return Err(twice());
            }
        }
        "check" => {
            let b = builtin(&value)?;
            if h.check.replace((b, value.at)).is_some() {
                return Err(twice());
            }
        }
        "trace" => {
            let n = value.text.parse::<u32>().ok().filter(|&n| n > 0).ok_or((
                value.at,
                format!(
                    "`trace=` is how many blocks to trace (1 or more), not `{}`",
                    value.text
                ),
            ))?;
            if h.trace.replace((n, value.at)).is_some() {
                return Err(twice());
            }
        }
        _ => {
            let name = Written {
                text: key.to_string(),
                at: item.at,
            };
            push_size((&mut h.sizes, &mut h.named), name, value, "size")?;
        }
    }
    Ok(())
}

fn push_size(
    (list, named): (
        &mut Vec<(Written, Written)>,
        &mut std::collections::HashSet<String>,
    ),
    name: Written,
    value: Written,
    what: &str,
) -> Result<(), ItemError> {
    if !named.insert(format!("{what}:{}", name.text)) {
        return Err((name.at, format!("{what} `{}` is given twice", name.text)));
    }
    list.push((name, value));
    Ok(())
}

fn not_an_item(t: &str) -> String {
    format!(
        "`{t}` is not a header item: a size is NAME=EXPR (`n=1<<20`), a buffer \
         NAME:TYPE[LEN] or NAME:TYPE[LEN]=INIT (`out:f32[n]`, `in:f32[n]=random`), and the \
         keys are {}",
        KEYS.map(|k| format!("{k}=")).join(", ")
    )
}

/// `NAME:TYPE[LEN]` with an optional `=INIT`; `colon` is the byte index of the `:`.
fn buffer(item: &Written, colon: usize) -> Result<BufferItem, ItemError> {
    let t = &item.text;
    let name = Written {
        text: t[..colon].to_string(),
        at: item.at,
    };
    let rest = &t[colon + 1..];
    let ty_at = item.at.plus(t[..=colon].chars().count());
    let form = || {
        (
            ty_at,
            format!(
                "buffer `{}`: write NAME:TYPE[LEN] (an output) or NAME:TYPE[LEN]=INIT (an \
                 input), e.g. `{}:f32[n]=random`",
                name.text, name.text
            ),
        )
    };
    let open = rest.find('[').ok_or_else(form)?;
    let close = rest.rfind(']').filter(|&c| c > open).ok_or_else(form)?;
    let ty_text = &rest[..open];
    let ty = match ty_text {
        "f32" => ElemType::F32,
        "f64" => ElemType::F64,
        "i32" => ElemType::I32,
        "u32" => ElemType::U32,
        "u64" => ElemType::U64,
        other => {
            return Err((
                ty_at,
                format!(
                    "buffer `{}`: type `{other}` is none of f32, f64, i32, u32, u64",
                    name.text
                ),
            ));
        }
    };
    let len_at = ty_at.plus(rest[..=open].chars().count());
    let len = trimmed(&rest[open + 1..close], len_at);
    if len.text.is_empty() {
        return Err((
            len_at,
            format!("buffer `{}` has no length in its `[]`", name.text),
        ));
    }
    let after = &rest[close + 1..];
    let fill_at = ty_at.plus(rest[..=close].chars().count());
    let fill = match after.strip_prefix('=') {
        None if after.is_empty() => Fill::Output,
        None => return Err(form()),
        Some(init) => fill(init, fill_at.plus(1), &name.text)?,
    };
    Ok(BufferItem {
        name,
        ty,
        ty_at,
        len,
        fill,
        fill_at: fill_at.plus(1),
        text: t.clone(),
    })
}

fn fill(init: &str, at: At, name: &str) -> Result<Fill, ItemError> {
    let bad = || {
        (
            at,
            format!(
                "buffer `{name}`: `={init}` is none of random, random(LO,HI), seq, zeros, \
                 poison (an output) or a number"
            ),
        )
    };
    Ok(match init {
        "random" => Fill::Random(None),
        "seq" => Fill::Seq,
        "zeros" => Fill::Zeros,
        "poison" => Fill::Output,
        _ => {
            if let Some(range) = init
                .strip_prefix("random(")
                .and_then(|r| r.strip_suffix(')'))
            {
                let parts: Vec<&str> = range.split(',').map(str::trim).collect();
                let (Some(lo), Some(hi), 2) = (
                    parts.first().and_then(|p| p.parse::<f64>().ok()),
                    parts.get(1).and_then(|p| p.parse::<f64>().ok()),
                    parts.len(),
                ) else {
                    return Err(bad());
                };
                let ordered = lo.is_finite() && hi.is_finite() && lo < hi;
                if !ordered {
                    return Err((
                        at,
                        format!("buffer `{name}`: random({lo},{hi}) needs LO < HI"),
                    ));
                }
                Fill::Random(Some((lo, hi)))
            } else {
                match init.parse::<f64>() {
                    Ok(x) if x.is_finite() => Fill::Const(x),
                    _ => return Err(bad()),
                }
            }
        }
    })
}

fn arg_item(w: Written) -> Result<ArgItem, ItemError> {
    if w.text.is_empty() {
        return Err((w.at, "`args=` has an empty entry".into()));
    }
    for ty in ["i32", "u32", "i64", "u64", "f32"] {
        if let Some(rest) = w.text.strip_prefix(ty).and_then(|r| r.strip_prefix(':')) {
            let value = Written {
                text: rest.to_string(),
                at: w.at.plus(ty.len() + 1),
            };
            if ty == "f32" && rest.parse::<f64>().is_err() {
                return Err((
                    value.at,
                    format!("`f32:{rest}`: an f32 argument is a number"),
                ));
            }
            return Ok(ArgItem {
                ty: Some(ty.to_string()),
                value,
            });
        }
    }
    Ok(ArgItem { ty: None, value: w })
}

fn builtin(value: &Written) -> Result<Builtin, ItemError> {
    let t = &value.text;
    let form = || {
        (
            value.at,
            format!(
                "`check={t}`: a built-in reference is copy(FROM,TO) or \
                 transpose(FROM,TO,ROWS,COLS)"
            ),
        )
    };
    let open = t.find('(').ok_or_else(form)?;
    let inner = t[open + 1..].strip_suffix(')').ok_or_else(form)?;
    let parts = split_commas(inner, value.at.plus(t[..=open].chars().count()));
    let mut p = parts.into_iter();
    match (&t[..open], p.len()) {
        ("copy", 2) => Ok(Builtin::Copy {
            from: p.next().ok_or_else(form)?,
            to: p.next().ok_or_else(form)?,
        }),
        ("transpose", 4) => Ok(Builtin::Transpose {
            from: p.next().ok_or_else(form)?,
            to: p.next().ok_or_else(form)?,
            rows: p.next().ok_or_else(form)?,
            cols: p.next().ok_or_else(form)?,
        }),
        _ => Err(form()),
    }
}

#[cfg(test)]
#[path = "header_tests.rs"]
mod tests;
