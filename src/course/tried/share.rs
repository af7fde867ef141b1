//! What the files of a try share: its sizes, CPU sizes and buffers, and the metrics, check
//! and traced blocks. Each file's header may give them, alike where two do (a difference is
//! an error at the later one's place, naming the earlier); the `--header` flags replace
//! what the files give.

use super::header::{At, BufferItem, Builtin, Header, Written};
use super::parts::{Errors, Source, error};
use crate::course::CourseError;
use crate::course::expr;
use std::collections::HashMap;

/// A size or another item of the whole try, and the file (or flag) that gave it.
#[derive(Debug, Clone)]
pub(super) struct Given<T> {
    pub(super) value: T,
    pub(super) file: String,
}

/// What the files share: sizes, buffers, metrics, the check and the traced blocks.
#[derive(Default)]
pub(super) struct Shared {
    pub(super) sizes: Vec<Given<(Written, Written)>>,
    pub(super) cpu_sizes: Vec<Given<(Written, Written)>>,
    pub(super) buffers: Vec<Given<BufferItem>>,
    pub(super) bytes: Option<Given<Written>>,
    pub(super) flops: Option<Given<Written>>,
    pub(super) peak: Option<Given<(bool, At)>>,
    pub(super) check: Option<Given<(Builtin, At)>>,
    pub(super) trace: Option<Given<(u32, At)>>,
}

/// The sizes, buffers and other items of the whole try: each file may give them, alike
/// where two do; the `--header` flags replace what the files give.
pub(super) fn share(sources: &[Source], flags: &Header) -> Result<Shared, Errors> {
    let mut s = Shared::default();
    let mut errs = Vec::new();
    // Where each size name sits in the shared lists: found without a scan per item.
    let (mut at_size, mut at_cpu) = (HashMap::new(), HashMap::new());
    let headers = sources.iter().map(|s| &s.header).chain([flags]);
    for h in headers {
        let over = h.file == flags.file;
        let file = h.file.clone();
        for (n, v) in &h.sizes {
            merge_size((&mut s.sizes, &mut at_size), (n, v), &file, over, &mut errs);
        }
        for (n, v) in &h.cpu_sizes {
            merge_size(
                (&mut s.cpu_sizes, &mut at_cpu),
                (n, v),
                &file,
                over,
                &mut errs,
            );
        }
        for b in &h.buffers {
            let given = Given {
                value: b.clone(),
                file: file.clone(),
            };
            match s
                .buffers
                .iter_mut()
                .find(|o| o.value.name.text == b.name.text)
            {
                Some(o) if over => *o = given,
                Some(o) if o.value.text != b.text => errs.push(unlike(
                    &file,
                    b.name.at,
                    &format!("buffer `{}`", b.name.text),
                    (&b.text, &o.value.text),
                    (&o.file, o.value.name.at),
                )),
                Some(_) => {}
                None => s.buffers.push(given),
            }
        }
        merge_one(
            &mut s.bytes,
            h.bytes.clone(),
            &file,
            over,
            "bytes=",
            &mut errs,
        );
        merge_one(
            &mut s.flops,
            h.flops.clone(),
            &file,
            over,
            "flops=",
            &mut errs,
        );
        merge_one(&mut s.peak, h.peak, &file, over, "peak=", &mut errs);
        merge_one(
            &mut s.check,
            h.check.clone(),
            &file,
            over,
            "check=",
            &mut errs,
        );
        merge_one(&mut s.trace, h.trace, &file, over, "trace=", &mut errs);
    }
    if errs.is_empty() { Ok(s) } else { Err(errs) }
}

/// The sizes given so far, and where each name sits among them.
type SizesSoFar<'a> = (
    &'a mut Vec<Given<(Written, Written)>>,
    &'a mut HashMap<String, usize>,
);

fn merge_size(
    (list, index): SizesSoFar,
    (name, value): (&Written, &Written),
    file: &str,
    over: bool,
    errs: &mut Errors,
) {
    let given = Given {
        value: (name.clone(), value.clone()),
        file: file.to_string(),
    };
    let known = index.get(&name.text).copied();
    if known.is_none() {
        index.insert(name.text.clone(), list.len());
    }
    match known.map(|i| &mut list[i]) {
        Some(o) if over => *o = given,
        Some(o) if o.value.1.text != value.text => errs.push(unlike(
            file,
            value.at,
            &format!("size `{}`", name.text),
            (&value.text, &o.value.1.text),
            (&o.file, o.value.1.at),
        )),
        Some(_) => {}
        None => list.push(given),
    }
}

/// An item of the whole try given once (the `--header` flags replacing a file's).
fn merge_one<T: Clone + Placed>(
    slot: &mut Option<Given<T>>,
    new: Option<T>,
    file: &str,
    over: bool,
    key: &str,
    errs: &mut Errors,
) {
    let Some(value) = new else { return };
    match slot {
        // Alike as written: the same item at another place in another file is no
        // difference.
        Some(o) if !over && o.value.words() != value.words() => errs.push(unlike(
            file,
            value.at(),
            &format!("`{key}`"),
            (&value.words(), &o.value.words()),
            (&o.file, o.value.at()),
        )),
        Some(_) if !over => {}
        _ => {
            *slot = Some(Given {
                value,
                file: file.to_string(),
            })
        }
    }
}

/// An item's place and text, to say where two files disagree.
trait Placed {
    fn at(&self) -> At;
    fn words(&self) -> String;
}

impl Placed for Written {
    fn at(&self) -> At {
        self.at
    }
    fn words(&self) -> String {
        self.text.clone()
    }
}

impl Placed for (bool, At) {
    fn at(&self) -> At {
        self.1
    }
    fn words(&self) -> String {
        if self.0 { "copy" } else { "none" }.into()
    }
}

impl Placed for (u32, At) {
    fn at(&self) -> At {
        self.1
    }
    fn words(&self) -> String {
        self.0.to_string()
    }
}

impl Placed for (Builtin, At) {
    fn at(&self) -> At {
        self.1
    }
    fn words(&self) -> String {
        match &self.0 {
            Builtin::Copy { from, to } => format!("copy({},{})", from.text, to.text),
            Builtin::Transpose {
                from,
                to,
                rows,
                cols,
            } => format!(
                "transpose({},{},{},{})",
                from.text, to.text, rows.text, cols.text
            ),
        }
    }
}

fn unlike(
    file: &str,
    at: At,
    what: &str,
    (here, there): (&str, &str),
    first: (&str, At),
) -> CourseError {
    error(
        file,
        at,
        format!(
            "{what} is `{here}` here but `{there}` at {}:{}:{}: files tried together share \
             their sizes and buffers (give it in one file, or alike in each)",
            first.0, first.1.line, first.1.col
        ),
    )
}

/// The sizes' values, in order, each over those before it.
pub(super) fn evaluate(sizes: &[Given<(Written, Written)>]) -> Result<Vec<(String, i64)>, Errors> {
    let mut env: Vec<(String, i64)> = Vec::new();
    let mut errs = Vec::new();
    for g in sizes {
        let (name, value) = &g.value;
        match expr::eval(&value.text, &env) {
            Ok(v) => env.push((name.text.clone(), v)),
            Err(e) => errs.push(error(
                &g.file,
                value.at.plus(e.col),
                format!("size `{}`: {}", name.text, e.message),
            )),
        }
    }
    if errs.is_empty() { Ok(env) } else { Err(errs) }
}

/// The CPU sizes: each names a size and evaluates (over the sizes) to more than 0.
pub(super) fn evaluate_cpu(
    s: &Shared,
    env: &[(String, i64)],
) -> Result<Vec<(String, i64)>, Errors> {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    for g in &s.cpu_sizes {
        let (name, value) = &g.value;
        if !env.iter().any(|(n, _)| *n == name.text) {
            let known: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
            errs.push(error(
                &g.file,
                name.at,
                format!(
                    "`cpu.{}` names no size of the header (sizes: {})",
                    name.text,
                    if known.is_empty() {
                        "none".into()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
            continue;
        }
        match expr::eval(&value.text, env) {
            Ok(v) if v > 0 => out.push((name.text.clone(), v)),
            Ok(v) => errs.push(error(
                &g.file,
                value.at,
                format!(
                    "`cpu.{}` must be more than 0 (`{}` is {v})",
                    name.text, value.text
                ),
            )),
            Err(e) => errs.push(error(
                &g.file,
                value.at.plus(e.col),
                format!("`cpu.{}`: {}", name.text, e.message),
            )),
        }
    }
    if errs.is_empty() { Ok(out) } else { Err(errs) }
}
