//! Buffers on the host: fresh inputs for every run, and the poison that marks unwritten
//! outputs. What outputs should hold, and the check of them, are in `outputs`.

use crate::model::{Buffer, ElemType, Init, ramp_at, random_int, splitmix};

#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// splitmix64: fast, and good enough to make inputs that no kernel can guess.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let z = splitmix(self.0);
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A seed that differs on every call, so every run gets fresh data.
pub fn fresh_seed() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    t ^ (std::process::id() as u64).rotate_left(32)
}

/// The initial contents of a buffer (outputs: the poison pattern).
pub fn generate(buf: &Buffer, seed: u64) -> HostData {
    let n = buf.len as usize;
    let base = seed ^ fnv(&buf.name);
    let (lo, hi) = match buf.init {
        Init::Random { lo, hi } => (lo, hi),
        _ => (0.0, 1.0),
    };
    let val = |i: usize, rng: &mut Rng| -> f64 {
        match buf.init {
            Init::Random { .. } => lo + (hi - lo) * rng.unit(),
            Init::Seq => i as f64,
            Init::Ramp { lo, hi, shuffled } => ramp_at(
                lo,
                hi,
                shuffled,
                n as u64,
                base,
                i as u64,
                !buf.ty.is_float(),
            ),
            Init::Zeros => 0.0,
            Init::Const(c) => c,
            Init::Poison => 0.0,
        }
    };
    let p = buf.ty.poison_bits();
    match buf.ty {
        ElemType::F32 if buf.init == Init::Poison => HostData::F32(vec![f32::from_bits(p); n]),
        ElemType::F64 if buf.init == Init::Poison => {
            HostData::F64(vec![f64::from_bits(((p as u64) << 32) | p as u64); n])
        }
        ElemType::I32 if buf.init == Init::Poison => HostData::I32(vec![p as i32; n]),
        ElemType::U32 if buf.init == Init::Poison => HostData::U32(vec![p; n]),
        ElemType::U64 if buf.init == Init::Poison => {
            HostData::U64(vec![((p as u64) << 32) | p as u64; n])
        }
        ElemType::F32 => HostData::F32(filled(n, base, |i, r| val(i, r) as f32)),
        ElemType::F64 => HostData::F64(filled(n, base, val)),
        // Random integers from the generator's bits, not through an f64 (`random_int`).
        ElemType::I32 | ElemType::U32 | ElemType::U64
            if matches!(buf.init, Init::Random { .. }) =>
        {
            let int = |r: &mut Rng| random_int(lo, hi, r.next());
            match buf.ty {
                ElemType::I32 => HostData::I32(filled(n, base, |_, r| int(r) as i32)),
                ElemType::U32 => HostData::U32(filled(n, base, |_, r| int(r) as u32)),
                _ => HostData::U64(filled(n, base, |_, r| int(r) as u64)),
            }
        }
        ElemType::I32 => HostData::I32(filled(n, base, |i, r| val(i, r).floor() as i32)),
        ElemType::U32 => HostData::U32(filled(n, base, |i, r| val(i, r).floor() as u32)),
        ElemType::U64 => HostData::U64(filled(n, base, |i, r| val(i, r).floor() as u64)),
    }
}

/// Elements drawn per generator: each chunk has its own, so chunks fill in parallel and
/// the values do not depend on how many threads filled them.
const CHUNK: usize = 1 << 20;

/// `n` elements, element `i` made by `f(i, rng)` with the generator of its chunk. A GiB
/// of inputs is made on every core: a learner waits for it before every fresh run.
fn filled<T: Copy + Default + Send>(
    n: usize,
    base: u64,
    f: impl Fn(usize, &mut Rng) -> T + Sync,
) -> Vec<T> {
    let mut out = vec![T::default(); n];
    let chunks: Vec<(usize, &mut [T])> = out.chunks_mut(CHUNK).enumerate().collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(16);
    let per = chunks.len().div_ceil(threads).max(1);
    let mut groups: Vec<Vec<(usize, &mut [T])>> = Vec::new();
    for c in chunks {
        match groups.last_mut() {
            Some(g) if g.len() < per => g.push(c),
            _ => groups.push(vec![c]),
        }
    }
    std::thread::scope(|s| {
        for group in groups {
            let f = &f;
            s.spawn(move || {
                for (k, part) in group {
                    let mut rng = Rng(base ^ (k as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
                    for (j, x) in part.iter_mut().enumerate() {
                        *x = f(k * CHUNK + j, &mut rng);
                    }
                }
            });
        }
    });
    out
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

impl HostData {
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::F64(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::U32(v) => v.len(),
            HostData::U64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements whose bits differ from `other`'s at the same index (past the shorter's
    /// end, or of another type, every one of the longer counts).
    pub fn differing(&self, other: &HostData) -> u64 {
        fn count<T: Copy, B: PartialEq>(a: &[T], b: &[T], bits: fn(T) -> B) -> u64 {
            let same = a
                .iter()
                .zip(b)
                .filter(|&(x, y)| bits(*x) == bits(*y))
                .count();
            (a.len().max(b.len()) - same) as u64
        }
        match (self, other) {
            (HostData::F32(a), HostData::F32(b)) => count(a, b, f32::to_bits),
            (HostData::F64(a), HostData::F64(b)) => count(a, b, f64::to_bits),
            (HostData::I32(a), HostData::I32(b)) => count(a, b, |x| x),
            (HostData::U32(a), HostData::U32(b)) => count(a, b, |x| x),
            (HostData::U64(a), HostData::U64(b)) => count(a, b, |x| x),
            _ => self.len().max(other.len()) as u64,
        }
    }

    /// The elements of a `ty` buffer from its little-endian bytes (a trailing part
    /// element is dropped).
    pub fn from_le_bytes(ty: ElemType, raw: &[u8]) -> HostData {
        fn words<const N: usize, T>(raw: &[u8], f: fn([u8; N]) -> T) -> Vec<T> {
            raw.chunks_exact(N)
                .map(|c| f(c.try_into().expect("N bytes")))
                .collect()
        }
        match ty {
            ElemType::F32 => HostData::F32(words(raw, f32::from_le_bytes)),
            ElemType::F64 => HostData::F64(words(raw, f64::from_le_bytes)),
            ElemType::I32 => HostData::I32(words(raw, i32::from_le_bytes)),
            ElemType::U32 => HostData::U32(words(raw, u32::from_le_bytes)),
            ElemType::U64 => HostData::U64(words(raw, u64::from_le_bytes)),
        }
    }

    /// Writes the values' little-endian bytes into `out`, which holds exactly as many.
    pub fn write_le(&self, out: &mut [u8]) {
        fn put<const N: usize, T: Copy>(v: &[T], out: &mut [u8], le: impl Fn(T) -> [u8; N]) {
            assert_eq!(out.len(), v.len() * N, "room for every value");
            for (o, &x) in out.chunks_exact_mut(N).zip(v) {
                o.copy_from_slice(&le(x));
            }
        }
        match self {
            HostData::F32(v) => put(v, out, f32::to_le_bytes),
            HostData::F64(v) => put(v, out, f64::to_le_bytes),
            HostData::I32(v) => put(v, out, i32::to_le_bytes),
            HostData::U32(v) => put(v, out, u32::to_le_bytes),
            HostData::U64(v) => put(v, out, u64::to_le_bytes),
        }
    }

    /// The one 32-bit word every word of the elements' bytes is (zeros, a constant of a
    /// 4-byte type, or of an 8-byte type whose halves are alike), found by looking at every
    /// element; None for anything else, or no elements. Such an input is filled where it
    /// lies rather than copied there.
    pub fn one_word(&self) -> Option<u32> {
        fn alike<T: Copy + PartialEq>(v: &[T], word: impl Fn(T) -> Option<u32>) -> Option<u32> {
            let first = *v.first()?;
            let w = word(first)?;
            v.iter().all(|&x| x == first).then_some(w)
        }
        let halves = |bits: u64| (bits >> 32 == bits & 0xffff_ffff).then_some(bits as u32);
        match self {
            // Compared by their bits: -0.0 is not 0.0, and a NaN is itself.
            HostData::F32(v) => {
                let first = v.first()?.to_bits();
                v.iter().all(|x| x.to_bits() == first).then_some(first)
            }
            HostData::F64(v) => {
                let first = v.first()?.to_bits();
                let w = halves(first)?;
                v.iter().all(|x| x.to_bits() == first).then_some(w)
            }
            HostData::I32(v) => alike(v, |x| Some(x as u32)),
            HostData::U32(v) => alike(v, Some),
            HostData::U64(v) => alike(v, halves),
        }
    }

    /// The elements as little-endian bytes, as a device buffer holds them: sized once
    /// (collecting a flat_map grew the vector from nothing, about a second for a GiB).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let size = match self {
            HostData::F32(_) | HostData::I32(_) | HostData::U32(_) => 4,
            HostData::F64(_) | HostData::U64(_) => 8,
        };
        let mut out = vec![0; self.len() * size];
        self.write_le(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {

    /// An input is one word over and over only where every element's bytes are that word:
    /// zeros of any type, a constant of a 4-byte type, an 8-byte one whose halves match;
    /// one element off, a negative zero among zeros, or halves that differ, and it is not.
    #[test]
    fn one_word_is_found_only_where_every_word_is_it() {
        use super::HostData as H;
        assert_eq!(H::U32(vec![7; 5]).one_word(), Some(7));
        assert_eq!(H::I32(vec![-1; 5]).one_word(), Some(u32::MAX));
        assert_eq!(H::F32(vec![1.5; 5]).one_word(), Some(1.5f32.to_bits()));
        assert_eq!(H::U64(vec![0; 5]).one_word(), Some(0));
        assert_eq!(H::U64(vec![0x0000_0003_0000_0003; 5]).one_word(), Some(3));
        assert_eq!(H::F64(vec![0.0; 5]).one_word(), Some(0));
        assert_eq!(H::U64(vec![1; 5]).one_word(), None, "halves differ");
        assert_eq!(H::F64(vec![1.0; 5]).one_word(), None, "halves differ");
        assert_eq!(
            H::F32(vec![0.0, -0.0]).one_word(),
            None,
            "-0.0 is other bits"
        );
        assert_eq!(H::U32(vec![7, 7, 8]).one_word(), None);
        assert_eq!(H::U32(vec![]).one_word(), None);
    }
    use super::*;

    #[test]
    fn differing_elements_are_counted_by_their_bits() {
        let a = HostData::F32(vec![1.0, 0.0, f32::NAN, 4.0]);
        // -0.0 differs from 0.0 in its bits; the same NaN does not.
        let b = HostData::F32(vec![1.0, -0.0, f32::NAN, 5.0]);
        assert_eq!(a.differing(&b), 2);
        assert_eq!(a.differing(&a), 0);
        let short = HostData::U32(vec![7]);
        assert_eq!(HostData::U32(vec![7, 8, 9]).differing(&short), 2);
        assert_eq!(a.differing(&short), 4, "another type differs everywhere");
    }

    #[test]
    fn written_bytes_are_the_values_little_endian() {
        for h in [
            HostData::F32(vec![1.5, -2.0, f32::MIN_POSITIVE]),
            HostData::U64(vec![0x0102_0304_0506_0708, u64::MAX]),
            HostData::I32(vec![-1, 7]),
        ] {
            let want = h.to_le_bytes();
            let mut got = vec![0xAAu8; want.len()];
            h.write_le(&mut got);
            assert_eq!(got, want);
        }
        assert_eq!(HostData::U32(vec![0x0102_0304]).to_le_bytes(), [4, 3, 2, 1]);
    }

    fn buf(init: Init, ty: ElemType) -> Buffer {
        Buffer {
            name: "x".into(),
            ty,
            len: 1000,
            init,
            gpu: 0,
            memory: Default::default(),
        }
    }

    #[test]
    fn random_inputs_stay_in_range_and_change_with_the_seed() {
        let b = buf(Init::Random { lo: -1.0, hi: 1.0 }, ElemType::F32);
        let HostData::F32(a) = generate(&b, 1) else {
            panic!()
        };
        let HostData::F32(c) = generate(&b, 2) else {
            panic!()
        };
        assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
        assert_ne!(a, c);
        assert!(a.iter().any(|v| *v < 0.0) && a.iter().any(|v| *v > 0.0));
    }

    /// Integers drawn over the type's whole range (the default): the top bit and the low
    /// bits vary, so a kernel that takes inputs for 16-bit numbers, or a u64 for a multiple
    /// of 2^11, is wrong on them. (The interpreter draws through the same `random_int`;
    /// spill-cap's `pack-halves` answer fails there for it.)
    #[test]
    fn random_integers_fill_every_bit_of_their_type() {
        for ty in [ElemType::U32, ElemType::I32, ElemType::U64] {
            let (lo, hi) = ty.random_range();
            let b = buf(Init::Random { lo, hi }, ty);
            let words: Vec<u64> = match generate(&b, 7) {
                HostData::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
                HostData::I32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
                HostData::U64(v) => v,
                _ => panic!(),
            };
            let top = (ty.size() * 8 - 1) as u32;
            let high = words.iter().filter(|&&w| (w >> top) & 1 == 1).count();
            assert!(
                (400..600).contains(&high),
                "{ty:?}: {high} of 1000 with the top bit"
            );
            assert!(words.iter().any(|&w| w & 0x7ff != 0), "{ty:?}: low bits");
            assert!(words.iter().any(|&w| w >> 16 != 0), "{ty:?}: above 16 bits");
        }
        // A written range is kept, to its last value.
        let b = buf(Init::Random { lo: 3.0, hi: 7.0 }, ElemType::U32);
        let HostData::U32(v) = generate(&b, 3) else {
            panic!()
        };
        assert!(v.iter().all(|x| (3..7).contains(x)) && v.contains(&6) && v.contains(&3));
    }

    #[test]
    fn inputs_made_in_parallel_chunks_repeat_for_a_seed_and_no_chunk_repeats_another() {
        let mut b = buf(Init::Random { lo: 0.0, hi: 1.0 }, ElemType::U64);
        b.init = Init::Random { lo: 0.0, hi: 1e18 };
        b.len = (3 * CHUNK + 5) as u64;
        let (HostData::U64(a), HostData::U64(c)) = (generate(&b, 9), generate(&b, 9)) else {
            panic!()
        };
        assert_eq!(a, c, "the same seed, the same inputs");
        let starts: Vec<&[u64]> = (0..4).map(|k| &a[k * CHUNK..k * CHUNK + 4]).collect();
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(starts[i], starts[j], "chunks {i} and {j} start alike");
            }
        }
    }
}
