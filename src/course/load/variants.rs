//! Variants: `like:` inheritance, the kernel source and its entry point, launch shapes and
//! arguments. Inherited keys keep the path where they were written, so an error in a parent's
//! key points at the parent's text.

use super::resolve::Cx;
use crate::course::bundle::CourseRoot;
use crate::course::expr::is_identifier;
use crate::course::schema::{ArgType, DefineValue, Dims, Expr, RawArg, RawVariant};
use crate::model::{Arg, Buffer, Variant};
use std::collections::HashMap;

/// A value and the path it was written at.
type At<T> = Option<(T, String)>;

/// A variant after `like:` is applied, before evaluation.
#[derive(Clone, Default)]
struct Merged {
    source: At<String>,
    kernel: At<String>,
    defines: Vec<(String, DefineValue)>,
    grid: At<Dims>,
    block: At<Dims>,
    smem: At<Expr>,
    args: At<Vec<RawArg>>,
    options: Vec<String>,
    note: Option<String>,
}

fn over<T: Clone>(slot: &mut At<T>, value: &Option<T>, path: String) {
    if let Some(v) = value {
        *slot = Some((v.clone(), path));
    }
}

fn merge(parent: Merged, v: &RawVariant, i: usize) -> Merged {
    let mut m = parent;
    let p = |k: &str| format!("variants[{i}].{k}");
    over(&mut m.source, &v.source, p("source"));
    over(&mut m.kernel, &v.kernel, p("kernel"));
    if let Some(l) = &v.launch {
        over(&mut m.grid, &l.grid, p("launch.grid"));
        over(&mut m.block, &l.block, p("launch.block"));
        over(&mut m.smem, &l.smem, p("launch.smem"));
    }
    over(&mut m.args, &v.args, p("args"));
    for (k, val) in v.defines.iter().flat_map(|d| &d.0) {
        match m.defines.iter_mut().find(|(n, _)| n == k) {
            Some(slot) => slot.1 = val.clone(),
            None => m.defines.push((k.clone(), val.clone())),
        }
    }
    if let Some(o) = &v.options {
        m.options = o.clone();
    }
    if v.note.is_some() {
        m.note = v.note.clone();
    }
    m
}

pub(super) fn resolve_all(
    cx: &mut Cx,
    root: &CourseRoot,
    raws: &[Option<RawVariant>],
    problem: &[(String, i64)],
    buffers: &[Option<Buffer>],
    buffer_names: &[String],
) -> Option<Vec<Variant>> {
    let names: Vec<Option<String>> = (0..raws.len())
        .map(|i| {
            cx.spans
                .scalar(&format!("variants[{i}].name"))
                .map(str::to_string)
        })
        .collect();
    let mut merged: Vec<Option<Merged>> = Vec::new();
    let mut sources: HashMap<String, Option<String>> = HashMap::new();
    let mut out = Some(Vec::new());
    for (i, raw) in raws.iter().enumerate() {
        let Some(v) = raw else {
            merged.push(None);
            out = None;
            continue;
        };
        let m = inherit(cx, v, i, &names, &merged);
        merged.push(m.clone());
        let name_ok = check_name(cx, v, i, &names);
        let resolved = m.and_then(|m| {
            let r = build(
                cx,
                root,
                v,
                i,
                m,
                problem,
                buffers,
                buffer_names,
                &mut sources,
            );
            r.filter(|_| name_ok)
        });
        match (resolved, out.as_mut()) {
            (Some(r), Some(list)) => list.push(r),
            _ => out = None,
        }
    }
    out
}

fn check_name(cx: &mut Cx, v: &RawVariant, i: usize, names: &[Option<String>]) -> bool {
    let path = format!("variants[{i}].name");
    let valid = !v.name.is_empty()
        && v.name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        cx.err(
            &path,
            format!(
                "variant name `{}` may hold only letters, digits, '-' and '_'",
                v.name
            ),
        );
        return false;
    }
    if names[..i].iter().flatten().any(|n| *n == v.name) {
        cx.err(&path, format!("variant `{}` is defined twice", v.name));
        return false;
    }
    true
}

/// Apply `like:`; `None` when the parent is unknown or itself broken.
fn inherit(
    cx: &mut Cx,
    v: &RawVariant,
    i: usize,
    names: &[Option<String>],
    merged: &[Option<Merged>],
) -> Option<Merged> {
    let Some(parent) = &v.like else {
        return Some(merge(Merged::default(), v, i));
    };
    let path = format!("variants[{i}].like");
    let earlier: Vec<&str> = names[..i].iter().flatten().map(String::as_str).collect();
    match names[..i].iter().position(|n| n.as_deref() == Some(parent)) {
        Some(j) => merged[j].clone().map(|p| merge(p, v, i)),
        None => {
            let msg = if names[i..].iter().any(|n| n.as_deref() == Some(parent)) {
                format!("`like: {parent}` must name an earlier variant (`{parent}` comes later)")
            } else if earlier.is_empty() {
                format!("unknown variant `{parent}` in `like` (no variant comes before this one)")
            } else {
                format!(
                    "unknown variant `{parent}` in `like` (earlier variants: {})",
                    earlier.join(", ")
                )
            };
            cx.err(&path, msg);
            None
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    cx: &mut Cx,
    root: &CourseRoot,
    v: &RawVariant,
    i: usize,
    m: Merged,
    problem: &[(String, i64)],
    buffers: &[Option<Buffer>],
    buffer_names: &[String],
    sources: &mut HashMap<String, Option<String>>,
) -> Option<Variant> {
    let here = format!("variants[{i}]");
    let lacking: Vec<&str> = [
        ("source", m.source.is_none()),
        ("kernel", m.kernel.is_none()),
        ("launch.grid", m.grid.is_none()),
        ("launch.block", m.block.is_none()),
        ("args", m.args.is_none()),
    ]
    .into_iter()
    .filter_map(|(k, absent)| absent.then_some(k))
    .collect();
    if !lacking.is_empty() {
        let keys: Vec<String> = lacking.iter().map(|k| format!("`{k}`")).collect();
        let hint = if v.like.is_some() {
            ""
        } else {
            " (or `like:` an earlier variant)"
        };
        cx.err(
            &here,
            format!("variant `{}` needs {}{hint}", v.name, keys.join(", ")),
        );
        return None;
    }
    let (Some(source), Some(kernel), Some(grid), Some(block), Some(args)) =
        (m.source, m.kernel, m.grid, m.block, m.args)
    else {
        return None;
    };

    let env = env_with_defines(cx, problem, &m.defines, i)?;
    let text = sources
        .entry(source.0.clone())
        .or_insert_with(|| root.read(&source.0))
        .clone();
    let text = match text {
        Some(t) => {
            if let Some(msg) = kernel_problem(&t, &kernel.0, &source.0) {
                cx.err(&kernel.1, msg);
            }
            Some(t)
        }
        None => {
            cx.err(
                &source.1,
                format!("cannot read `{}` (paths are relative to the course root, the folder that holds `lessons/`)", source.0),
            );
            None
        }
    };
    let grid = dims(cx, &grid, &env, true);
    let block = dims(cx, &block, &env, false);
    let smem = match &m.smem {
        None => Some(0),
        Some((e, path)) => cx.eval(path, e, &env).and_then(|s| match u32::try_from(s) {
            Ok(s) => Some(s),
            Err(_) => {
                cx.err(
                    path,
                    format!("`smem` must be 0 to {} bytes (`{}` is {s})", u32::MAX, e.0),
                );
                None
            }
        }),
    };
    let args = arguments(cx, &args, &env, buffers, buffer_names);
    Some(Variant {
        name: v.name.clone(),
        source_path: source.0,
        source: text?,
        kernel: kernel.0,
        defines: m
            .defines
            .iter()
            .map(|(k, d)| (k.clone(), d.to_text()))
            .collect(),
        grid: grid?,
        block: block?,
        smem: smem?,
        args: args?,
        options: m.options,
        note: m.note,
    })
}

/// The problem sizes plus the integer defines; `None` if a define is malformed.
fn env_with_defines(
    cx: &mut Cx,
    problem: &[(String, i64)],
    defines: &[(String, DefineValue)],
    i: usize,
) -> Option<Vec<(String, i64)>> {
    let mut env = problem.to_vec();
    let mut ok = true;
    for (k, d) in defines {
        let path = format!("variants[{i}].defines.{k}");
        if !is_identifier(k) {
            cx.err_key(
                &path,
                format!("define `{k}` is not a macro name ([A-Za-z_][A-Za-z0-9_]*)"),
            );
            ok = false;
        } else if problem.iter().any(|(n, _)| n == k) {
            cx.err_key(
                &path,
                format!("define `{k}` has the name of a problem size"),
            );
            ok = false;
        } else if let DefineValue::Int(n) = d {
            env.push((k.clone(), *n));
        }
    }
    ok.then_some(env)
}

/// Grid: x up to 2^31-1, y and z up to 65535. Block: x, y up to 1024, z up to 64, at most
/// 1024 threads in all.
fn dims(
    cx: &mut Cx,
    (d, path): &(Dims, String),
    env: &[(String, i64)],
    grid: bool,
) -> Option<[u32; 3]> {
    let what = if grid { "grid" } else { "block" };
    if d.items.is_empty() || d.items.len() > 3 {
        cx.err(
            path,
            format!(
                "`{what}` takes 1 to 3 expressions (x, y, z), not {}",
                d.items.len()
            ),
        );
        return None;
    }
    let limits: [i64; 3] = if grid {
        [(1 << 31) - 1, 65535, 65535]
    } else {
        [1024, 1024, 64]
    };
    let mut out = [1u32; 3];
    let mut ok = true;
    for (k, e) in d.items.iter().enumerate() {
        let at = if d.listed {
            format!("{path}[{k}]")
        } else {
            path.clone()
        };
        match cx.eval(&at, e, env) {
            Some(v) if (1..=limits[k]).contains(&v) => out[k] = v as u32,
            Some(v) => {
                let axis = ["x", "y", "z"][k];
                cx.err(
                    &at,
                    format!(
                        "{what} {axis} must be 1 to {} (`{}` is {v})",
                        limits[k], e.0
                    ),
                );
                ok = false;
            }
            None => ok = false,
        }
    }
    if ok && !grid {
        let threads: u32 = out.iter().product();
        if threads > 1024 {
            cx.err(
                path,
                format!("a block has at most 1024 threads (this one has {threads})"),
            );
            ok = false;
        }
    }
    ok.then_some(out)
}

fn arguments(
    cx: &mut Cx,
    (args, path): &(Vec<RawArg>, String),
    env: &[(String, i64)],
    buffers: &[Option<Buffer>],
    buffer_names: &[String],
) -> Option<Vec<Arg>> {
    let mut out = Some(Vec::new());
    for (k, a) in args.iter().enumerate() {
        let at = format!("{path}[{k}]");
        let arg = match a {
            RawArg::Text(s) if buffer_names.contains(s) => {
                let idx = buffer_names.iter().position(|n| n == s);
                // A buffer that failed to load has already been reported.
                idx.filter(|&j| buffers.get(j).is_some_and(Option::is_some))
                    .map(Arg::Buffer)
            }
            RawArg::Text(s) if is_identifier(s) && !env.iter().any(|(n, _)| n == s) => {
                let names: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
                cx.err(
                    &at,
                    format!(
                        "unknown buffer or name `{s}` in args (buffers: {}; names: {})",
                        list(buffer_names.iter().map(String::as_str)),
                        list(names.into_iter())
                    ),
                );
                None
            }
            RawArg::Text(s) => typed(cx, &at, ArgType::I32, &Expr(s.clone()), env),
            RawArg::Typed(ty, e) => typed(cx, &format!("{at}.{}", ty_name(*ty)), *ty, e, env),
            RawArg::F32(x) => Some(Arg::F32(*x as f32)),
        };
        match (arg, out.as_mut()) {
            (Some(a), Some(list)) => list.push(a),
            _ => out = None,
        }
    }
    out
}

fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn ty_name(t: ArgType) -> &'static str {
    match t {
        ArgType::I32 => "i32",
        ArgType::U32 => "u32",
        ArgType::I64 => "i64",
        ArgType::U64 => "u64",
        ArgType::F32 => "f32",
    }
}

fn typed(cx: &mut Cx, path: &str, ty: ArgType, e: &Expr, env: &[(String, i64)]) -> Option<Arg> {
    let v = cx.eval(path, e, env)?;
    let arg = match ty {
        ArgType::I32 => i32::try_from(v).ok().map(Arg::I32),
        ArgType::U32 => u32::try_from(v).ok().map(Arg::U32),
        ArgType::I64 => Some(Arg::I64(v)),
        ArgType::U64 => u64::try_from(v).ok().map(Arg::U64),
        ArgType::F32 => Some(Arg::F32(v as f32)),
    };
    if arg.is_none() {
        let hint = if ty == ArgType::I32 {
            " (write { i64: .. } for a 64-bit argument)"
        } else {
            ""
        };
        cx.err(
            path,
            format!(
                "`{}` is {v}, which does not fit in {}{hint}",
                e.0,
                ty_name(ty)
            ),
        );
    }
    arg
}

/// Why `kernel` is not an entry point of `src`, if it is not. A text check: the name must be
/// followed by `(`, and the source must say `__global__` and `extern "C"` (without which
/// the name would be mangled and the lab could not find it).
fn kernel_problem(src: &str, kernel: &str, path: &str) -> Option<String> {
    if !src.contains("__global__") {
        return Some(format!("`{path}` has no __global__ function"));
    }
    if calls_name(src, kernel) {
        if src.contains("extern \"C\"") {
            return None;
        }
        return Some(format!(
            "`{kernel}` in `{path}` is not declared extern \"C\", so its name is mangled; \
             write `extern \"C\" __global__ void {kernel}(...)`"
        ));
    }
    if let Some(base) = demangled_base(kernel)
        && calls_name(src, base)
    {
        return Some(format!(
            "`{kernel}` is a mangled name; declare `{base}` extern \"C\" in `{path}` and write `kernel: {base}`"
        ));
    }
    Some(format!(
        "kernel `{kernel}` is not a __global__ function of `{path}` (it has: {})",
        list(global_functions(src).into_iter())
    ))
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `name` as a whole word followed (after spaces) by `(`.
fn calls_name(src: &str, name: &str) -> bool {
    src.match_indices(name).any(|(i, _)| {
        let before_ok = src[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_ident_char(c));
        let after = src[i + name.len()..].trim_start();
        before_ok && after.starts_with('(')
    })
}

/// `read_stride` from `_Z11read_stridePfi`.
fn demangled_base(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// The names of the functions declared `__global__`, in order.
fn global_functions(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (i, _) in src.match_indices("__global__") {
        let tail = &src[i..];
        let Some(paren) = tail.find('(') else {
            continue;
        };
        let head = tail[..paren].trim_end();
        let start = head.rfind(|c: char| !is_ident_char(c)).map_or(0, |j| j + 1);
        let name = &head[start..];
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "extern \"C\" __global__ void copy_vec(const float* a, float* b, int n) {}\n\
                       __global__ void other (int x) {}\n";

    #[test]
    fn finds_kernels_by_name() {
        assert_eq!(kernel_problem(SRC, "copy_vec", "k.cu"), None);
        assert_eq!(kernel_problem(SRC, "other", "k.cu"), None);
        let e = kernel_problem(SRC, "copy", "k.cu").unwrap();
        assert!(e.contains("not a __global__ function"), "{e}");
        assert!(e.contains("it has: copy_vec, other"), "{e}");
    }

    #[test]
    fn suggests_extern_c() {
        let plain = "__global__ void k(float* x) {}";
        let e = kernel_problem(plain, "k", "k.cu").unwrap();
        assert!(e.contains("extern \"C\""), "{e}");
        let e = kernel_problem(SRC, "_Z8copy_vecPKfPfi", "k.cu").unwrap();
        assert!(
            e.contains("mangled") && e.contains("kernel: copy_vec"),
            "{e}"
        );
        let e = kernel_problem("int main() {}", "main", "k.cu").unwrap();
        assert!(e.contains("no __global__ function"), "{e}");
    }

    #[test]
    fn demangles_the_base_name() {
        assert_eq!(demangled_base("_Z11read_stridePfi"), Some("read_stride"));
        assert_eq!(demangled_base("read_stride"), None);
        assert_eq!(demangled_base("_Z99x"), None);
    }
}
