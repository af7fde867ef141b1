//! Buffers on the host: fresh inputs for every run, the poison that marks unwritten outputs,
//! the built-in CPU references, and the NaN-aware comparison that decides "correct".

use crate::model::{Buffer, ElemType, Init, Reference, Tolerance};

#[derive(Debug, Clone, PartialEq)]
pub enum HostData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// Poison for outputs: all-ones is a NaN in f32 and f64, so an unwritten float can never
/// pass the NaN-aware check; integers get a pattern easy to spot in a dump.
pub fn poison_pattern(ty: ElemType) -> u32 {
    match ty {
        ElemType::F32 | ElemType::F64 => 0xFFFF_FFFF,
        ElemType::I32 | ElemType::U32 | ElemType::U64 => 0xDEAD_BEEF,
    }
}

/// splitmix64: fast, and good enough to make inputs that no kernel can guess.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
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
            Init::Zeros => 0.0,
            Init::Const(c) => c,
            Init::Poison => 0.0,
        }
    };
    let p = poison_pattern(buf.ty);
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

/// `builtin: sgemm` computed here, for a run with no GPU (no cuBLAS): the product summed
/// in f64 and rounded once to f32, so the lesson's tolerance covers the GPU's own order of
/// summation. Meant for the small sizes a CPU run checks (`problem_cpu`).
pub fn sgemm_on_host(reference: &Reference, inputs: &[HostData]) -> Option<(usize, HostData)> {
    let Reference::Sgemm {
        a,
        b,
        to,
        rows,
        cols,
        depth,
    } = *reference
    else {
        return None;
    };
    let (HostData::F32(a), HostData::F32(b)) = (inputs.get(a)?, inputs.get(b)?) else {
        return None;
    };
    let (r, c, d) = (rows as usize, cols as usize, depth as usize);
    if a.len() < r * d || b.len() < d * c {
        return None;
    }
    let mut out = vec![0f32; r * c];
    for i in 0..r {
        let mut acc = vec![0f64; c];
        for k in 0..d {
            let x = f64::from(a[i * d + k]);
            for (j, s) in acc.iter_mut().enumerate() {
                *s += x * f64::from(b[k * c + j]);
            }
        }
        for (o, s) in out[i * c..(i + 1) * c].iter_mut().zip(acc) {
            *o = s as f32;
        }
    }
    Some((to, HostData::F32(out)))
}

/// The expected contents of `out` under a built-in reference, given the inputs.
/// `None` for a variant reference (its outputs come from the GPU).
pub fn builtin_expected(reference: &Reference, inputs: &[HostData]) -> Option<(usize, HostData)> {
    match *reference {
        // A variant's outputs, and cuBLAS's, come from the GPU.
        Reference::Variant(_) | Reference::Sgemm { .. } => None,
        Reference::Copy { from, to } => Some((to, inputs[from].clone())),
        Reference::Transpose {
            from,
            to,
            rows,
            cols,
        } => {
            let (r, c) = (rows as usize, cols as usize);
            fn tr<T: Copy>(v: &[T], r: usize, c: usize) -> Vec<T> {
                let mut out = Vec::with_capacity(r * c);
                for j in 0..c {
                    for i in 0..r {
                        out.push(v[i * c + j]);
                    }
                }
                out
            }
            let data = match &inputs[from] {
                HostData::F32(v) => HostData::F32(tr(v, r, c)),
                HostData::F64(v) => HostData::F64(tr(v, r, c)),
                HostData::I32(v) => HostData::I32(tr(v, r, c)),
                HostData::U32(v) => HostData::U32(tr(v, r, c)),
                HostData::U64(v) => HostData::U64(tr(v, r, c)),
            };
            Some((to, data))
        }
    }
}

/// Results of the same function computed in another order may differ in the last bits;
/// anything beyond the lesson's tolerance (`Tolerance::default()` unless it sets one) is a
/// different answer.
fn float_ok(got: f64, want: f64, tol: &Tolerance) -> bool {
    // NaN never passes: an unwritten (poisoned) output is NaN.
    if got.is_nan() || want.is_nan() {
        return false;
    }
    got == want || (got - want).abs() <= tol.abs + tol.rel * want.abs().max(got.abs())
}

/// An output that differs from what it should hold.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Mismatch {
    #[error("{name}: output of the wrong type or length")]
    Shape { name: String },
    /// The first wrong element, and how many are wrong.
    #[error("{first} ({bad} of {total} elements wrong)")]
    Values {
        first: String,
        bad: usize,
        total: usize,
    },
}

/// Compare an output with what it should hold; floats within `tol`.
pub fn compare(
    name: &str,
    got: &HostData,
    want: &HostData,
    tol: &Tolerance,
) -> Result<(), Mismatch> {
    let mut wrong = Wrong::default();
    let same_len = got.len() == want.len();
    match (got, want) {
        (HostData::F32(g), HostData::F32(w)) if same_len => wrong.scan(g, w, |a, b| {
            (
                float_ok(a as f64, b as f64, tol),
                a.to_bits() == 0xFFFF_FFFF,
            )
        }),
        (HostData::F64(g), HostData::F64(w)) if same_len => {
            wrong.scan(g, w, |a, b| (float_ok(a, b, tol), a.to_bits() == u64::MAX))
        }
        (HostData::I32(g), HostData::I32(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a as u32 == 0xDEAD_BEEF))
        }
        (HostData::U32(g), HostData::U32(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a == 0xDEAD_BEEF))
        }
        (HostData::U64(g), HostData::U64(w)) if same_len => {
            wrong.scan(g, w, |a, b| (a == b, a == 0xDEAD_BEEF_DEAD_BEEF))
        }
        _ => {
            return Err(Mismatch::Shape {
                name: name.to_string(),
            });
        }
    }
    match wrong.first {
        None => Ok(()),
        Some((i, g, w, poisoned)) => {
            let why = if poisoned { " (never written)" } else { "" };
            Err(Mismatch::Values {
                first: format!("{name}[{i}] = {g}{why}, expected {w}"),
                bad: wrong.bad,
                total: got.len(),
            })
        }
    }
}

/// The wrong elements of one output: how many, and the first (index, got, expected, and
/// whether it still holds the poison).
#[derive(Default)]
struct Wrong {
    bad: usize,
    first: Option<(usize, String, String, bool)>,
}

impl Wrong {
    /// `judge(got, expected)` says whether they agree and whether `got` is the poison.
    fn scan<T: Copy + ToString>(
        &mut self,
        got: &[T],
        want: &[T],
        judge: impl Fn(T, T) -> (bool, bool),
    ) {
        for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
            let (ok, poisoned) = judge(a, b);
            if !ok {
                self.bad += 1;
                if self.first.is_none() {
                    self.first = Some((i, a.to_string(), b.to_string(), poisoned));
                }
            }
        }
    }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_product_is_row_major_a_times_b() {
        let r = Reference::Sgemm {
            a: 0,
            b: 1,
            to: 2,
            rows: 2,
            cols: 2,
            depth: 3,
        };
        let a = HostData::F32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let b = HostData::F32(vec![7.0, 8.0, 9.0, 10.0, 11.0, 12.0]);
        let (to, c) = sgemm_on_host(&r, &[a, b]).unwrap();
        assert_eq!(to, 2);
        assert_eq!(c, HostData::F32(vec![58.0, 64.0, 139.0, 154.0]));
        assert!(sgemm_on_host(&Reference::Variant(0), &[]).is_none());
    }

    fn buf(init: Init, ty: ElemType) -> Buffer {
        Buffer {
            name: "x".into(),
            ty,
            len: 1000,
            init,
            gpu: 0,
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

    #[test]
    fn poisoned_output_never_matches_even_itself() {
        let b = buf(Init::Poison, ElemType::F32);
        let p = generate(&b, 0);
        let err = compare("out", &p, &p, &Tolerance::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("never written"), "{err}");
        assert!(err.contains("1000 of 1000"), "{err}");
    }

    #[test]
    fn compare_reports_the_first_mismatch() {
        let want = HostData::F32(vec![1.0, 2.0, 3.0]);
        let got = HostData::F32(vec![1.0, 2.5, 3.0]);
        let err = compare("out", &got, &want, &Tolerance::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("out[1] = 2.5"), "{err}");
        assert!(compare("out", &want, &want, &Tolerance::default()).is_ok());
        let close = HostData::F32(vec![1.0, 2.0 + 1e-6, 3.0]);
        assert!(compare("out", &close, &want, &Tolerance::default()).is_ok());
    }

    #[test]
    fn a_lesson_tolerance_widens_or_narrows_the_float_check_and_nan_never_passes() {
        let want = HostData::F32(vec![1000.0, 2.0]);
        let got = HostData::F32(vec![1000.05, 2.0]);
        let loose = Tolerance {
            rel: 1e-4,
            abs: 0.0,
        };
        let tight = Tolerance {
            rel: 1e-6,
            abs: 1e-6,
        };
        assert!(compare("out", &got, &want, &loose).is_ok());
        let err = compare("out", &got, &want, &tight).unwrap_err().to_string();
        assert!(err.starts_with("out[0] = 1000.05"), "{err}");
        let huge = Tolerance {
            rel: 1e30,
            abs: 1e30,
        };
        let nan = HostData::F32(vec![f32::NAN, 2.0]);
        assert!(compare("out", &nan, &want, &huge).is_err());
        assert!(compare("out", &want, &nan, &huge).is_err());
    }

    #[test]
    fn transpose_reference_swaps_rows_and_columns() {
        let input = HostData::U32((0..6).collect());
        let r = Reference::Transpose {
            from: 0,
            to: 1,
            rows: 2,
            cols: 3,
        };
        let (to, data) = builtin_expected(&r, &[input]).unwrap();
        assert_eq!(to, 1);
        assert_eq!(data, HostData::U32(vec![0, 3, 1, 4, 2, 5]));
    }
}
