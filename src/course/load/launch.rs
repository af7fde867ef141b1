//! A variant's launch: its defines joined to the problem sizes, grid and block shapes, and
//! kernel arguments, each checked against what the hardware and the kernel accept.

use super::cx::{Cx, Known};
use super::kernel::list;
use crate::course::expr::is_identifier;
use crate::course::schema::{ArgType, DefineValue, Dims, Expr, RawArg};
use crate::model::Arg;

/// The problem sizes plus the integer defines; `None` if a define is malformed.
pub(super) fn env_with_defines(
    cx: &mut Cx,
    problem: &[(String, i64)],
    defines: &[(String, DefineValue)],
    at: &str,
) -> Option<Vec<(String, i64)>> {
    let mut env = problem.to_vec();
    let mut ok = true;
    for (k, d) in defines {
        let path = format!("{at}.defines.{k}");
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
pub(super) fn dims(
    cx: &mut Cx,
    dims: &(Dims, String),
    env: &[(String, i64)],
    grid: bool,
) -> Option<[u32; 3]> {
    let (what, limits) = if grid {
        ("grid", [(1 << 31) - 1, 65535, 65535])
    } else {
        ("block", [1024, 1024, 64])
    };
    let (out, _) = axes(cx, dims, env, what, limits)?;
    let path = &dims.1;
    let mut ok = true;
    if !grid {
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

pub(super) fn arguments(
    cx: &mut Cx,
    (args, path): &(Vec<RawArg>, String),
    env: &[(String, i64)],
    known: &Known,
) -> Option<Vec<Arg>> {
    let (buffers, buffer_names) = (known.buffers, known.buffer_names);
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
            RawArg::F32(x) | RawArg::F32Drawn(x, _) => Some(Arg::F32(*x as f32)),
            RawArg::Tex(name) => super::textures::argument(cx, &format!("{at}.tex"), name, known),
        };
        match (arg, out.as_mut()) {
            (Some(a), Some(list)) => list.push(a),
            _ => out = None,
        }
    }
    out
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

/// One to three expressions (x, y, z), each evaluated and held to 1..=its limit, with the
/// path each was written at; every bad one is reported.
pub(super) fn axes(
    cx: &mut Cx,
    (d, path): &(Dims, String),
    env: &[(String, i64)],
    what: &str,
    limits: [i64; 3],
) -> Option<([u32; 3], Vec<String>)> {
    if d.items.is_empty() || d.items.len() > 3 {
        let n = d.items.len();
        cx.err(
            path,
            format!("`{what}` takes 1 to 3 expressions (x, y, z), not {n}"),
        );
        return None;
    }
    let mut out = [1u32; 3];
    let mut paths = Vec::new();
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
                let msg = format!(
                    "{what} {axis} must be 1 to {} (`{}` is {v})",
                    limits[k], e.0
                );
                cx.err(&at, msg);
                ok = false;
            }
            None => ok = false,
        }
        paths.push(at);
    }
    ok.then_some((out, paths))
}
