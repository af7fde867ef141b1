//! Each file of a try as a variant: which of its kernels runs (the one `kernel=` names,
//! else the only `__global__` function), its launch (the `--header` flags', else its own
//! header's, else the first file's) and its arguments, matched to the kernel's parameters by name unless
//! `args=` gives them. What a header lacks is one error that shows the header line to add.

use super::header::{At, Header, Written};
use super::parts::{Define, Errors, Source, error, whole};
use super::share::{Given, Shared};
use super::yaml::Origin;
use crate::course::CourseError;
use crate::course::expr;
use crate::course::signature::{self, ParamKind, Signature};

/// A variant as it will be written: its file, kernel, defines, launch and arguments.
#[derive(Clone)]
pub(super) struct Planned {
    pub(super) name: String,
    pub(super) source: usize,
    pub(super) kernel: (String, Origin),
    pub(super) defines: Vec<(String, String, Origin)>,
    pub(super) grid: Given<Vec<Written>>,
    pub(super) block: Given<Vec<Written>>,
    pub(super) smem: Option<Given<Written>>,
    pub(super) args: Vec<(ArgText, Origin)>,
    pub(super) note: String,
}

/// One argument as the lesson file writes it.
#[derive(Clone)]
pub(super) enum ArgText {
    Plain(String),
    Typed(&'static str, String),
    F32(f64),
}

/// Which kernel of the file runs, with what launch and arguments.
pub(super) fn plan_file(
    i: usize,
    sources: &[Source],
    flags: &Header,
    shared: &Shared,
    (env, define_names): (&[(String, i64)], &[&str]),
) -> Result<Planned, Errors> {
    let src = &sources[i];
    let (kernel, sig) = kernel(src, flags)?;
    let first = &sources[0].header;
    // The flags, else the file's own header, else the first file's.
    let pick = |f: fn(&Header) -> Option<&Vec<Written>>| {
        [flags, &src.header, first].into_iter().find_map(|h| {
            f(h).map(|v| Given {
                value: v.clone(),
                file: h.file.clone(),
            })
        })
    };
    let grid = pick(|h| h.grid.as_ref());
    let block = pick(|h| h.block.as_ref());
    let smem = [flags, &src.header, first].into_iter().find_map(|h| {
        h.smem.as_ref().map(|v| Given {
            value: v.clone(),
            file: h.file.clone(),
        })
    });
    let given = (flags.args.as_ref().map(|a| (a, &flags.file))).or(src
        .header
        .args
        .as_ref()
        .map(|a| (a, &src.header.file)));
    let args = match given {
        Some(((_, list), file)) => Some(
            list.iter()
                .map(|a| {
                    let text = match a.ty.as_deref() {
                        None => ArgText::Plain(a.value.text.clone()),
                        Some("f32") => ArgText::F32(a.value.text.parse().unwrap_or(0.0)),
                        Some(ty) => ArgText::Typed(type_key(ty), a.value.text.clone()),
                    };
                    (text, Origin::new(file, a.value.at))
                })
                .collect(),
        ),
        None => auto_args(src, &sig, shared, (env, define_names)),
    };
    let explicit = given.is_some();
    let (Some(grid), Some(block), Some(args)) = (grid, block, args) else {
        // Given `args=`, only the launch can be missing.
        let params = if explicit { &[][..] } else { &sig.params[..] };
        let missing = missing_items(
            (&sig.params, params),
            shared,
            (env, define_names),
            [&src.header, flags, first],
        );
        return Err(vec![missing_header(src, &kernel.0, &missing)]);
    };
    Ok(Planned {
        name: String::new(),
        source: i,
        note: src.shown.clone(),
        kernel,
        defines: Vec::new(),
        grid,
        block,
        smem,
        args,
    })
}

fn type_key(ty: &str) -> &'static str {
    match ty {
        "u32" => "u32",
        "i64" => "i64",
        "u64" => "u64",
        _ => "i32",
    }
}

/// The file's kernel: the one `kernel=` names, else its only `__global__` function. It must
/// be `extern "C"`, as a lesson's kernel must, so its name is not mangled.
fn kernel(src: &Source, flags: &Header) -> Result<((String, Origin), Signature), Errors> {
    let globals = signature::global_functions(&src.text);
    let named = flags.kernel.as_ref().map(|k| (k, &flags.file)).or(src
        .header
        .kernel
        .as_ref()
        .map(|k| (k, &src.header.file)));
    let names = || {
        globals
            .iter()
            .map(|g| g.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (sig, origin) = match named {
        Some((k, file)) => match globals.iter().find(|g| g.name == k.text) {
            Some(g) => (g.clone(), Origin::new(file, k.at)),
            None => {
                return Err(vec![error(
                    file,
                    k.at,
                    format!(
                        "`{}` is no __global__ function of {} (it has: {})",
                        k.text,
                        src.shown,
                        if globals.is_empty() {
                            "none".into()
                        } else {
                            names()
                        }
                    ),
                )]);
            }
        },
        None => match globals.as_slice() {
            [] => return Err(vec![whole(&src.shown, "has no __global__ function to run")]),
            [one] => (one.clone(), Origin::file(&src.shown)),
            _ => {
                return Err(vec![error(
                    &src.shown,
                    src.header.start.unwrap_or(At { line: 1, col: 1 }),
                    format!(
                        "{} has {} kernels ({}): say which runs with `kernel=NAME` in its header",
                        src.shown,
                        globals.len(),
                        names()
                    ),
                )]);
            }
        },
    };
    if !sig.extern_c && !signature::code_only(&src.text).contains("extern \"C\"") {
        let at = if origin.at.line > 0 {
            origin.at
        } else {
            At::default()
        };
        return Err(vec![error(
            &origin.file,
            at,
            format!(
                "`{0}` is not declared extern \"C\", so its name is mangled and the lab cannot \
                 find it: write `extern \"C\" __global__ void {0}(...)`",
                sig.name
            ),
        )]);
    }
    Ok(((sig.name.clone(), origin), sig))
}

/// A parameter's name: its last word (after any default value and array brackets are cut).
fn param_name(text: &str) -> Option<String> {
    let decl = text.split('=').next().unwrap_or(text);
    let decl = decl.split('[').next().unwrap_or(decl);
    let words: Vec<&str> = decl
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let last = *words.last()?;
    // A parameter written as its type alone (`int`) has no name to match.
    let typed_only = words.len() == 1
        || matches!(
            signature::kind_of(last),
            ParamKind::Int { .. } | ParamKind::Float { .. }
        );
    (!typed_only && expr::is_identifier(last)).then(|| last.to_string())
}

/// The argument for parameter `p`, matched by its name: a pointer gets the buffer of its
/// name, a number the size (or `-D` macro) of its name; None when nothing matches.
fn matched(
    p: &signature::Param,
    shared: &Shared,
    (env, define_names): (&[(String, i64)], &[&str]),
) -> Option<ArgText> {
    let name = param_name(&p.text)?;
    let buffer = shared.buffers.iter().any(|b| b.value.name.text == name);
    let size = env.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let number = size.is_some() || define_names.contains(&name.as_str());
    match p.kind {
        ParamKind::Pointer if buffer => Some(ArgText::Plain(name)),
        ParamKind::Unknown if buffer || number => Some(ArgText::Plain(name)),
        ParamKind::Int { bytes: 4 } if number => Some(ArgText::Plain(name)),
        ParamKind::Int { bytes: 8 } if number => Some(ArgText::Typed("i64", name)),
        ParamKind::Float { bytes: 4 } => size.map(|v| ArgText::F32(v as f64)),
        _ => None,
    }
}

/// The arguments, each parameter matched by its name (`matched`); None when one matches
/// nothing (the error then says what the header lacks).
fn auto_args(
    src: &Source,
    sig: &Signature,
    shared: &Shared,
    known: (&[(String, i64)], &[&str]),
) -> Option<Vec<(ArgText, Origin)>> {
    let origin = match src.header.start {
        Some(at) => Origin::new(&src.shown, at),
        None => Origin::file(&src.shown),
    };
    (sig.params.iter())
        .map(|p| matched(p, shared, known).map(|a| (a, origin.clone())))
        .collect()
}

/// The items a header lacks for `sig` to run: a size for each number parameter and a buffer
/// for each pointer parameter that matches nothing, and a grid and a block where none is
/// given.
fn missing_items(
    (all, unmatched): (&[signature::Param], &[signature::Param]),
    shared: &Shared,
    known: (&[(String, i64)], &[&str]),
    headers: [&Header; 3],
) -> Vec<String> {
    let numbers: Vec<String> = (all.iter())
        .filter(|p| matches!(p.kind, ParamKind::Int { .. }))
        .filter_map(|p| param_name(&p.text))
        .collect();
    // What buffers are as long as (and the grid covers): the first number parameter that is
    // a size, else the first size, else the first number parameter (made a size), else `n`.
    let is_size = |n: &String| known.0.iter().any(|(s, _)| s == n);
    let len = (numbers.iter().find(|n| is_size(n)).cloned())
        .or_else(|| shared.sizes.first().map(|s| s.value.0.text.clone()))
        .or_else(|| numbers.first().cloned())
        .unwrap_or_else(|| "n".into());
    // Sizes first, then the buffers over them, then the launch.
    let mut sizes: Vec<String> = Vec::new();
    let mut buffers: Vec<String> = Vec::new();
    let has_size = |n: &str| known.0.iter().any(|(s, _)| s == n);
    let number = |name: &str, sizes: &mut Vec<String>| {
        let value = if sizes.is_empty() { "1<<20" } else { "32" };
        sizes.push(format!("{name}={value}"));
    };
    // A float is a size of no length: it follows the integer sizes, so that the first of
    // those is the large one whatever the order of the parameters (a `float a` before
    // `int n` made it `a=1 n=32`).
    let mut floats: Vec<String> = Vec::new();
    let buffers_unsized = (unmatched.iter())
        .any(|p| p.kind == ParamKind::Pointer && matched(p, shared, known).is_none());
    if buffers_unsized && !has_size(&len) && !numbers.contains(&len) {
        number(&len, &mut sizes);
    }
    for p in unmatched {
        if matched(p, shared, known).is_some() {
            continue;
        }
        let Some(name) = param_name(&p.text) else {
            buffers.push(format!(
                "args=... (parameter `{}` has no name to match)",
                p.text
            ));
            continue;
        };
        match p.kind {
            ParamKind::Pointer => {
                let (ty, input) = pointee(&p.text);
                let init = if input { "=random" } else { "" };
                buffers.push(format!("{name}:{ty}[{len}]{init}"));
            }
            ParamKind::Int { bytes: 4 | 8 } => number(&name, &mut sizes),
            ParamKind::Float { bytes: 4 } => floats.push(format!("{name}=1")),
            _ => buffers.push(format!(
                "args=... (parameter `{}` is not a buffer or a number of 4 or 8 bytes)",
                p.text
            )),
        }
    }
    let mut out = sizes;
    out.append(&mut floats);
    out.append(&mut buffers);
    let given = |f: fn(&Header) -> bool| headers.iter().any(|h| f(h));
    if !given(|h| h.grid.is_some()) {
        out.push(format!("grid=ceil_div({len},256)"));
    }
    if !given(|h| h.block.is_some()) {
        out.push("block=256".into());
    }
    out
}

/// The element type a pointer parameter points at, and whether it is read only (`const`).
fn pointee(param: &str) -> (&'static str, bool) {
    let ty = param.split('*').next().unwrap_or(param);
    let words: Vec<&str> = ty
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let elem = if has("double") {
        "f64"
    } else if has("float") {
        "f32"
    } else if has("uint64_t") || (has("unsigned") && has("long")) || has("size_t") {
        "u64"
    } else if has("unsigned") || has("uint32_t") || has("uint") {
        "u32"
    } else if has("int") || has("int32_t") {
        "i32"
    } else {
        "f32"
    };
    (elem, has("const"))
}

/// The error that says what the header lacks, and the header line that would have it.
fn missing_header(src: &Source, kernel: &str, missing: &[String]) -> CourseError {
    let mut items: Vec<String> = src.header.items.clone();
    items.extend(missing.iter().cloned());
    let line = format!("// gpulab: {}", items.join(" "));
    match src.header.start {
        None => whole(
            &src.shown,
            format!(
                "no `// gpulab:` header says how to launch `{kernel}` and what to give it; add \
                 this line to the file (and make the sizes yours):\n{line}\n(the header's \
                 items are in docs/try.md; `--header \"...\"` gives them on the command line)"
            ),
        ),
        Some(at) => error(
            &src.shown,
            at,
            format!(
                "the header does not say all that `{kernel}` needs: add {}, so that it reads:\n{line}",
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
    }
}

/// `p` with the macros of `combo` (indices into `defines` and their values).
pub(super) fn with_defines(
    p: &Planned,
    combo: &[(usize, usize)],
    sources: &[Source],
    defines: &[Define],
) -> Planned {
    let defs: Vec<(String, String, Origin)> = combo
        .iter()
        .map(|&(i, j)| {
            let (v, o) = &defines[i].values[j];
            (defines[i].name.clone(), v.clone(), o.clone())
        })
        .collect();
    let mut note = sources[p.source].shown.clone();
    for (n, v, _) in &defs {
        note.push_str(&format!(" -D{n}={v}"));
    }
    Planned {
        defines: defs,
        note,
        ..p.clone()
    }
}
