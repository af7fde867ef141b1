//! A warp's lanes as the interpreter walks them: the set bits of a mask in order
//! (`lanes`), and a value or an address for each of the 32 (`row`, `ats`). Every
//! instruction's step uses them; they know nothing of warps or blocks.

/// The lanes of `mask`, lowest first.
pub fn lanes(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            l
        })
    })
}

pub(super) type Row = [u64; 32];

/// A row made lane by lane in a plain loop: `array::from_fn` was left as a call per row,
/// which the compiler then did not vectorise.
#[inline(always)]
pub(super) fn row(f: impl Fn(usize) -> u64) -> Row {
    let mut out = [0u64; 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = f(l);
    }
    out
}

/// `row` for resolved addresses.
#[inline(always)]
pub(super) fn ats(f: impl Fn(usize) -> super::mem::At) -> [super::mem::At; 32] {
    let mut out = [super::mem::At::Global(0); 32];
    for (l, o) in out.iter_mut().enumerate() {
        *o = f(l);
    }
    out
}
