//! Recognising a texture fetch: `tex{.base,.level,.grad}.{1d,2d}.v4.dtype.ctype d, [t, {c}]`
//! (also with a sampler, `[t, s, {c}]`), whose lanes each name texel coordinates, and a
//! gather, `tld4.{r,g,b,a}.2d.v4.dtype.f32` (`tex2Dgather`), one request of the same form
//! that returns one component of the four texels bilinear filtering would blend; its lanes
//! are logged at the coordinates they name, as a fetch's.

use super::access::Access;
use super::registers::type_bits;
use super::{Event, InstrumentError};
use crate::model::access::{AccessKind, CoordType, Space, TexCoords};

/// The fetch `op operands` makes, or None for a geometry the tracer does not follow (3D,
/// cube, arrays: their coordinates do not fit one 64-bit word per lane).
pub(super) fn parse_tex<'a>(
    guard: Option<&'a str>,
    op: &'a str,
    operands: &'a str,
    line: u32,
) -> Result<Option<Access<'a>>, InstrumentError> {
    let bad = || InstrumentError::BadAccess {
        line,
        text: format!("{op}{operands}"),
    };
    let mut dims = None;
    let mut vec = 1;
    let mut types = Vec::new();
    for q in op.split('.').skip(1) {
        match q {
            "base" | "level" | "grad" => {}
            // A gather's component.
            "r" | "g" | "b" | "a" if op.starts_with("tld4.") => {}
            "1d" => dims = Some(1),
            "2d" => dims = Some(2),
            "v2" => vec = 2,
            "v4" => vec = 4,
            t => match type_bits(t) {
                Some(bits) => types.push((t, bits)),
                None => return Ok(None),
            },
        }
    }
    let Some(dims) = dims else { return Ok(None) };
    let [(_, dbits), (cty, _)] = types[..] else {
        return Err(bad());
    };
    let ty = match cty {
        "f32" => CoordType::F32,
        "s32" => CoordType::S32,
        _ => return Err(bad()),
    };
    let open = operands.find('[').ok_or_else(bad)?;
    let close = operands[open..].find(']').ok_or_else(bad)? + open;
    let inside = &operands[open + 1..close];
    let vopen = inside.rfind('{').ok_or_else(bad)?;
    let vclose = inside[vopen..].find('}').ok_or_else(bad)? + vopen;
    Ok(Some(Access {
        guard,
        op,
        event: Event::Access {
            space: Space::Texture,
            kind: AccessKind::Load,
        },
        width: vec * dbits.max(8) / 8,
        addr: inside[vopen + 1..vclose].trim(),
        coords: Some(TexCoords {
            ty,
            dims,
            normalized: None,
        }),
        size: None,
        zero_src: None,
        mbar_operand: None,
        mbar_high: None,
    }))
}

/// The coordinate operands of a fetch, x first: registers or immediates.
pub(super) fn coordinates(addr: &str) -> Vec<&str> {
    addr.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}
