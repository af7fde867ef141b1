//! `textures:` at the top of a lesson, and `{ tex: name }` in a variant's `args`
//! (docs/lesson-format.md). Each rule reports at the key it concerns.

use super::cx::{Cx, Known};
use crate::course::expr::is_identifier;
use crate::course::schema::RawLesson;
use crate::course::schema::RawTexture;
use crate::model::texture::{AddressMode, FilterMode, ReadMode};
use crate::model::{Arg, Buffer, ElemType, Texture};

/// CUDA's limits on a 2D layered-free CUDA array for compute capability 5.0 and later
/// (CUDA C++ Programming Guide, "Features and Technical Specifications").
const MAX_WIDTH: i64 = 131_072;
const MAX_HEIGHT: i64 = 65_536;

/// Every texture's name as written, and the texture, `None` where it had an error.
pub(super) fn textures(
    cx: &mut Cx,
    raw: &RawLesson,
    problem: &[(String, i64)],
    buffers: &[Option<Buffer>],
) -> (Vec<String>, Vec<Option<Texture>>) {
    let list = raw.head.textures.iter().flatten();
    let names: Vec<String> = list.clone().map(|t| t.name.clone()).collect();
    let buffer_names: Vec<String> = raw
        .buffers
        .iter()
        .map(|b| b.as_ref().map_or(String::new(), |b| b.name.clone()))
        .collect();
    let mut out = Vec::new();
    for (k, t) in list.enumerate() {
        let at = |key: &str| format!("textures[{k}].{key}");
        let unique = !names[..k].contains(&t.name);
        if !is_identifier(&t.name) || !unique {
            cx.err(
                &at("name"),
                format!(
                    "texture name `{}` must be an identifier, given once",
                    t.name
                ),
            );
        }
        let from = source(cx, &at("from"), &t.from, &buffer_names, buffers);
        let texture = from.and_then(|(buffer, b)| {
            let dims = dims(cx, &at, t, problem, b)?;
            let modes = modes(cx, &at, t, b.ty)?;
            Some(build(t, buffer, dims, modes))
        });
        out.push(texture.filter(|_| is_identifier(&t.name) && unique));
    }
    (names, out)
}

/// `args[k]: { tex: name }`.
pub(super) fn argument(cx: &mut Cx, path: &str, name: &str, known: &Known) -> Option<Arg> {
    match known.texture_names.iter().position(|n| n == name) {
        // A texture that failed to load has already been reported.
        Some(j) => known.textures.get(j)?.as_ref().map(|_| Arg::Texture(j)),
        None if known.texture_names.is_empty() => {
            cx.err(
                path,
                format!("unknown texture `{name}`: the lesson has no `textures`"),
            );
            None
        }
        None => {
            let names = known.texture_names.join(", ");
            cx.err(
                path,
                format!("unknown texture `{name}` (textures: {names})"),
            );
            None
        }
    }
}

type Modes = (AddressMode, FilterMode, ReadMode);

fn build(t: &RawTexture, buffer: usize, (width, height): (u64, u64), m: Modes) -> Texture {
    Texture {
        name: t.name.clone(),
        buffer,
        width,
        height,
        address: m.0,
        filter: m.1,
        normalized: t.normalized.unwrap_or(false),
        read: m.2,
    }
}

/// The buffer the texels come from: an input whose element type a CUDA array can hold.
fn source<'b>(
    cx: &mut Cx,
    path: &str,
    name: &str,
    names: &[String],
    buffers: &'b [Option<Buffer>],
) -> Option<(usize, &'b Buffer)> {
    let Some(j) = names.iter().position(|n| n == name) else {
        let list = names.join(", ");
        cx.err(path, format!("unknown buffer `{name}` (buffers: {list})"));
        return None;
    };
    let b = buffers.get(j)?.as_ref()?;
    if b.is_output() {
        cx.err(
            path,
            format!("`{name}` is an output (init: poison); a texture reads an input's data"),
        );
        return None;
    }
    if !matches!(b.ty, ElemType::F32 | ElemType::I32 | ElemType::U32) {
        cx.err(
            path,
            format!(
                "`{name}` is {}; a texture's texels are f32, i32 or u32",
                format!("{:?}", b.ty).to_lowercase()
            ),
        );
        return None;
    }
    Some((j, b))
}

/// `width` and `height`: within CUDA's limits, and covering the buffer exactly.
fn dims(
    cx: &mut Cx,
    at: &dyn Fn(&str) -> String,
    t: &RawTexture,
    problem: &[(String, i64)],
    b: &Buffer,
) -> Option<(u64, u64)> {
    let side = |cx: &mut Cx, key: &str, e, max: i64| {
        let v = cx.eval(&at(key), e, problem)?;
        if v <= 0 || v > max {
            cx.err(
                &at(key),
                format!(
                    "`{key}` must be in 1..={max} (a 2D CUDA array); `{}` is {v}",
                    e.0
                ),
            );
            return None;
        }
        Some(v as u64)
    };
    let w = side(cx, "width", &t.width, MAX_WIDTH);
    let h = side(cx, "height", &t.height, MAX_HEIGHT);
    let (w, h) = (w?, h?);
    if w * h != b.len {
        cx.err(
            &at("height"),
            format!(
                "width × height is {w} × {h} = {}, but buffer `{}` has {} elements",
                w * h,
                b.name,
                b.len
            ),
        );
        return None;
    }
    Some((w, h))
}

fn pick<T: Copy>(cx: &mut Cx, path: &str, given: Option<&str>, all: &[(&str, T)]) -> Option<T> {
    let Some(given) = given else {
        return Some(all[0].1);
    };
    let found = all.iter().find(|(n, _)| *n == given).map(|p| p.1);
    if found.is_none() {
        let names: Vec<&str> = all.iter().map(|p| p.0).collect();
        cx.err(
            path,
            format!("unknown mode `{given}` (modes: {})", names.join(", ")),
        );
    }
    found
}

/// The modes, and the combinations CUDA refuses or that would give a learner garbage.
fn modes(cx: &mut Cx, at: &dyn Fn(&str) -> String, t: &RawTexture, ty: ElemType) -> Option<Modes> {
    let address = pick(cx, &at("address"), t.address.as_deref(), &AddressMode::ALL);
    let filter = pick(cx, &at("filter"), t.filter.as_deref(), &FilterMode::ALL);
    let read = pick(cx, &at("read"), t.read.as_deref(), &ReadMode::ALL);
    let (address, filter, read) = (address?, filter?, read?);
    let mut ok = true;
    if matches!(address, AddressMode::Wrap | AddressMode::Mirror) && t.normalized != Some(true) {
        // CUDA C++ Programming Guide, "Texture Fetching": wrap and mirror need normalized
        // coordinates.
        cx.err(
            &at("address"),
            "wrap and mirror addressing need `normalized: true` coordinates",
        );
        ok = false;
    }
    if read == ReadMode::NormalizedFloat {
        // Only 8- and 16-bit integer texels can be read as normalized floats.
        cx.err(
            &at("read"),
            "normalized_float reads 8- or 16-bit integers; a lesson buffer's texels are 32-bit",
        );
        ok = false;
    }
    if filter == FilterMode::Linear && ty != ElemType::F32 {
        cx.err(
            &at("filter"),
            "linear filtering interpolates floats: it needs an f32 buffer",
        );
        ok = false;
    }
    ok.then_some((address, filter, read))
}

#[cfg(test)]
#[path = "textures_tests.rs"]
mod tests;
