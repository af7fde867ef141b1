//! Reading an opcode's qualifiers into its decoded form, and refusing what is not modelled.

use super::Unmodelled;
use super::ops::{
    AtomOp, Bf16Cvt, Bin, BoolOp, Cmp, Kind, Narrow, Op, Prmt, Red, Redux, Rnd, Shfl, Space, Ty,
    Un, Vote, ty_of,
};

/// Opcodes the interpreter does not model, and what to do instead.
fn refused(base: &str, quals: &[&str]) -> Option<&'static str> {
    let cluster = quals.iter().any(|q| q.contains("cluster"));
    // The tensor cores' forms `matrix` runs; their 16-bit types are theirs alone, and the
    // bf16 conversions that feed them.
    if matches!(base, "ldmatrix" | "mma") {
        return matrix_form(base, quals).err();
    }
    if base == "cvt" && quals.iter().any(|q| q.starts_with("bf16")) {
        return bf16_cvt(quals).err();
    }
    let narrow = |q: &&str| {
        q.starts_with("f16") || q.starts_with("bf16") || matches!(*q, "tf32" | "e4m3x2" | "e5m2x2")
    };
    if quals.iter().any(narrow) {
        return Some(
            "half-precision and narrower float types (f16, bf16, tf32, fp8) are not interpreted: this kernel needs a GPU",
        );
    }
    Some(match base {
        "tex" | "tld4" | "txq" | "suld" | "sust" | "suq" => "textures and surfaces need a GPU",
        "wmma" | "wgmma" | "stmatrix" => {
            "these tensor-core instructions need a GPU (the interpreter runs ldmatrix and mma.sync m16n8k16)"
        }
        // `cp.async` to shared memory, its groups and the 1-D bulk copy (`async_copy` says
        // which forms) are modelled; the mbarrier arrival and the reductions are not.
        "cp" if quals.first() == Some(&"async")
            && !quals.iter().any(|q| matches!(*q, "mbarrier" | "reduce")) =>
        {
            return None;
        }
        "cp" => "cp.async.mbarrier.arrive and cp.reduce.async need a GPU",
        "brx" => "indirect branches are not interpreted",
        // Loads, stores, atomics, mapa, getctarank and the cluster barrier are modelled;
        // bulk copies and the rest on a cluster's memory are not.
        "ld" | "st" | "atom" | "red" | "mapa" | "getctarank" | "barrier" | "fence" | "membar"
        | "mbarrier" => {
            return None;
        }
        _ if cluster => {
            "this cluster instruction needs a GPU (the interpreter runs a cluster's loads, stores, atomics, mapa, getctarank and barrier.cluster)"
        }
        _ => return None,
    })
}

/// The `ldmatrix` and `mma` forms the interpreter runs, or why not.
fn matrix_form(base: &str, quals: &[&str]) -> Result<Op, &'static str> {
    let has = |q: &str| quals.contains(&q);
    if base == "ldmatrix" {
        let matrices = match () {
            _ if has("x1") => 1,
            _ if has("x2") => 2,
            _ if has("x4") => 4,
            _ => 0,
        };
        if matrices == 0 || !has("m8n8") || !has("b16") {
            return Err("ldmatrix other than m8n8 .b16 (x1, x2, x4) needs a GPU");
        }
        return Ok(Op::LdMatrix {
            matrices,
            trans: has("trans"),
        });
    }
    let narrow = match (has("bf16"), has("f16")) {
        (true, false) => Narrow::Bf16,
        (false, true) => Narrow::F16,
        _ => return Err("mma.sync other than m16n8k16 with bf16 or f16 inputs needs a GPU"),
    };
    let f32s = quals.iter().filter(|q| **q == "f32").count();
    if !has("m16n8k16") || !has("row") || !has("col") || f32s != 2 || has("satfinite") {
        return Err(
            "mma.sync other than m16n8k16.row.col with f32 accumulators needs a GPU (wgmma, wmma and the other shapes too)",
        );
    }
    Ok(Op::Mma(narrow))
}

/// The bf16 conversions the interpreter runs (`cvt.rn.bf16.f32`, `cvt.rn.bf16x2.f32`,
/// `cvt.f32.bf16`), or why not.
fn bf16_cvt(quals: &[&str]) -> Result<Op, &'static str> {
    let why = "bf16 conversions other than cvt.rn.bf16{x2}.f32 and cvt.f32.bf16 need a GPU";
    match quals {
        ["rn", "bf16", "f32"] => Ok(Op::CvtBf16(Bf16Cvt::Narrow)),
        ["rn", "bf16x2", "f32"] => Ok(Op::CvtBf16(Bf16Cvt::Pair)),
        ["f32", "bf16"] => Ok(Op::CvtBf16(Bf16Cvt::Widen)),
        _ => Err(why),
    }
}

fn rnd_of(q: &str) -> Option<Rnd> {
    Some(match q {
        "rn" => Rnd::Rn,
        "rz" => Rnd::Rz,
        "rm" => Rnd::Rm,
        "rp" => Rnd::Rp,
        "rni" => Rnd::Rni,
        "rzi" => Rnd::Rzi,
        "rmi" => Rnd::Rmi,
        "rpi" => Rnd::Rpi,
        _ => return None,
    })
}

fn cmp_of(q: &str) -> Option<Cmp> {
    Some(match q {
        "eq" => Cmp::Eq,
        "ne" => Cmp::Ne,
        "lt" | "lo" => Cmp::Lt,
        "le" | "ls" => Cmp::Le,
        "gt" | "hi" => Cmp::Gt,
        "ge" | "hs" => Cmp::Ge,
        "equ" => Cmp::Unordered(0),
        "neu" => Cmp::Unordered(1),
        "ltu" => Cmp::Unordered(2),
        "leu" => Cmp::Unordered(3),
        "gtu" => Cmp::Unordered(4),
        "geu" => Cmp::Unordered(5),
        "num" => Cmp::Num,
        "nan" => Cmp::Nan,
        _ => return None,
    })
}

/// An opcode's parts: the base (`ld`), its qualifiers and the types among them.
struct Q<'a> {
    text: &'a str,
    base: &'a str,
    quals: Vec<&'a str>,
    tys: Vec<Ty>,
}

impl<'a> Q<'a> {
    fn new(text: &'a str) -> Q<'a> {
        let mut parts = text.split('.');
        let base = parts.next().unwrap_or("");
        let quals: Vec<&str> = parts.collect();
        let tys = quals.iter().filter_map(|q| ty_of(q)).collect();
        Q {
            text,
            base,
            quals,
            tys,
        }
    }
    fn has(&self, q: &str) -> bool {
        self.quals.contains(&q)
    }
    fn need(&self) -> Result<Ty, Unmodelled> {
        (self.tys.last().copied()).ok_or_else(|| format!("`{}` has no type", self.text).into())
    }
}

/// Why an opcode read as `Op::Unmodelled` is not interpreted, in the learner's words.
pub fn why_unmodelled(text: &str) -> Unmodelled {
    parse_op(text)
        .err()
        .unwrap_or_else(|| "not interpreted".into())
}

/// The decoded opcode, or why it is not interpreted.
pub fn parse_op(text: &str) -> Result<Op, Unmodelled> {
    let q = Q::new(text);
    if let Some(why) = refused(q.base, &q.quals) {
        return Err(why.into());
    }
    // A float result rounded toward zero, down or up: the interpreter's float arithmetic
    // rounds to nearest, so such a form is refused, not given the nearest value.
    let directed = q.quals.iter().any(|x| matches!(*x, "rz" | "rm" | "rp"));
    let result = match q.base {
        "cvt" => q.tys.first(),
        _ => q.tys.last(),
    };
    if directed && result.is_some_and(|t| t.kind == Kind::F) {
        return Err(format!(
            "`{}`: a float rounded toward zero, down or up is not interpreted",
            q.text
        )
        .into());
    }
    if matches!(q.base, "ldmatrix" | "mma") {
        return matrix_form(q.base, &q.quals).map_err(Unmodelled::from);
    }
    if q.base == "cvt" && q.quals.iter().any(|q| q.starts_with("bf16")) {
        return bf16_cvt(&q.quals).map_err(Unmodelled::from);
    }
    arith(&q).unwrap_or_else(|| other(&q))
}

/// Arithmetic and logic on one type; None for any other opcode.
fn arith(q: &Q) -> Option<Result<Op, Unmodelled>> {
    let has = |x: &str| q.has(x);
    let need = || q.need();
    let bin = |b: Bin| Ok(Op::Bin(b, need()?));
    let un = |u: Un| Ok(Op::Un(u, need()?));
    let int32 = || {
        q.tys
            .last()
            .is_some_and(|t| t.bits == 32 && t.kind != Kind::F)
    };
    // Forms that change the result in ways not modelled: a saturating float or `mad`, a
    // `.relu` clamp, NaN-propagating or sign-folding min and max. Refused where a lane
    // runs them, not taken for the plain form (which would give another value).
    let odd = ["relu", "NaN", "xorsign", "abs"];
    if (has("sat") && !(matches!(q.base, "add" | "sub") && int32()))
        && matches!(
            q.base,
            "add" | "sub" | "mul" | "mad" | "fma" | "mad24" | "mul24"
        )
        || (matches!(q.base, "min" | "max") && odd.iter().any(|o| has(o)))
    {
        return Some(Err(format!("`{}` is not interpreted", q.text).into()));
    }
    Some(match q.base {
        "add" if has("sat") => bin(Bin::AddSat),
        "sub" if has("sat") => bin(Bin::SubSat),
        "add" => bin(Bin::Add),
        "sub" => bin(Bin::Sub),
        "mul" if has("hi") => bin(Bin::MulHi),
        "mul" if has("wide") => bin(Bin::MulWide),
        "mul24" if has("hi") => bin(Bin::Mul24Hi),
        "mul24" => bin(Bin::Mul24Lo),
        "mul" => bin(Bin::MulLo),
        "div" => bin(Bin::Div),
        "rem" => bin(Bin::Rem),
        "min" => bin(Bin::Min),
        "max" => bin(Bin::Max),
        "and" => bin(Bin::And),
        "or" => bin(Bin::Or),
        "xor" => bin(Bin::Xor),
        "shl" => bin(Bin::Shl),
        "shr" => bin(Bin::Shr),
        "copysign" => bin(Bin::Copysign),
        "mad" | "fma" | "mad24" => {
            let b = match () {
                _ if q.base == "mad24" && has("hi") => Bin::Mul24Hi,
                _ if q.base == "mad24" => Bin::Mul24Lo,
                _ if has("hi") => Bin::MulHi,
                _ if has("wide") => Bin::MulWide,
                _ => Bin::MulLo,
            };
            need().map(|t| Op::Mad(b, t))
        }
        "not" => un(Un::Not),
        "neg" => un(Un::Neg),
        "abs" => un(Un::Abs),
        "popc" => un(Un::Popc),
        "clz" => un(Un::Clz),
        "brev" => un(Un::Brev),
        "bfind" if has("shiftamt") => un(Un::BfindShift),
        "bfind" => un(Un::Bfind),
        "cnot" => un(Un::Cnot),
        "sqrt" => un(Un::Sqrt),
        "rcp" => un(Un::Rcp),
        "rsqrt" => un(Un::Rsqrt),
        "ex2" => un(Un::Ex2),
        "lg2" => un(Un::Lg2),
        "sin" => un(Un::Sin),
        "cos" => un(Un::Cos),
        _ => return None,
    })
}

/// Everything but arithmetic: comparisons, moves, memory, control, warp-wide.
fn other(q: &Q) -> Result<Op, Unmodelled> {
    let (text, quals, tys) = (q.text, &q.quals, &q.tys);
    let has = |x: &str| q.has(x);
    let need = || q.need();
    let space = (quals.iter().find_map(|q| Space::from_ptx(q))).unwrap_or(Space::Generic);
    let vec = (quals.iter())
        .find_map(|q| q.strip_prefix('v').and_then(|n| n.parse::<u8>().ok()))
        .unwrap_or(1);
    match q.base {
        "setp" => {
            let cmp = quals.iter().find_map(|q| cmp_of(q));
            let bool = quals.iter().find_map(|q| match *q {
                "and" => Some(BoolOp::And),
                "or" => Some(BoolOp::Or),
                "xor" => Some(BoolOp::Xor),
                _ => None,
            });
            let cmp = cmp.ok_or_else(|| format!("`{text}`: no comparison"))?;
            Ok(Op::Setp {
                cmp,
                bool,
                ty: need()?,
            })
        }
        "selp" => Ok(Op::Selp(need()?)),
        "mov" => Ok(Op::Mov(need()?)),
        "cvt" => match tys[..] {
            [dst, src] => Ok(Op::Cvt {
                dst,
                src,
                rnd: quals.iter().find_map(|q| rnd_of(q)).unwrap_or(Rnd::None),
                sat: has("sat"),
            }),
            _ => Err(format!("`{text}`: cvt needs two types").into()),
        },
        "cvta" => Ok(Op::Cvta {
            to: has("to"),
            space,
        }),
        "isspacep" => Ok(Op::Isspacep(space)),
        "mapa" => Ok(Op::Mapa {
            generic: space != Space::Cluster,
        }),
        "getctarank" => Ok(Op::Getctarank {
            generic: space != Space::Cluster,
        }),
        "ld" | "ldu" => Ok(Op::Ld {
            space,
            ty: need()?,
            vec,
        }),
        "st" => Ok(Op::St {
            space,
            ty: need()?,
            vec,
        }),
        "atom" | "red" => {
            let op = atom_op(quals).ok_or_else(|| format!("`{text}`: atomic not modelled"))?;
            Ok(Op::Atom {
                space,
                op,
                ty: need()?,
                red: q.base == "red",
            })
        }
        _ => control(q),
    }
}

/// Control flow, barriers, bit fields and the warp-wide instructions.
fn control(q: &Q) -> Result<Op, Unmodelled> {
    let (text, quals) = (q.text, &q.quals);
    let has = |x: &str| q.has(x);
    let need = || q.need();
    match q.base {
        "bfe" => Ok(Op::Bfe(need()?)),
        "bfi" => Ok(Op::Bfi(need()?)),
        // The form that also writes a predicate (`lop3.or.b32 d|p, ...`) is not modelled.
        "lop3" if quals.iter().all(|q| *q == "b32") => Ok(Op::Lop3),
        "prmt" => {
            let mode = match quals.iter().find(|q| **q != "b32") {
                None => Prmt::General,
                Some(&"f4e") => Prmt::F4e,
                Some(&"b4e") => Prmt::B4e,
                Some(&"rc8") => Prmt::Rc8,
                Some(&"ecl") => Prmt::Ecl,
                Some(&"ecr") => Prmt::Ecr,
                Some(&"rc16") => Prmt::Rc16,
                Some(_) => return Err(format!("`{text}` is not interpreted").into()),
            };
            Ok(Op::Prmt(mode))
        }
        "bra" => Ok(Op::Bra),
        "call" => Ok(Op::Call),
        "ret" => Ok(Op::Ret),
        "exit" => Ok(Op::Exit),
        "trap" => Ok(Op::Trap),
        "bar" | "barrier" if has("warp") => Ok(Op::BarWarp),
        "barrier" if has("cluster") && has("arrive") => Ok(Op::ClusterArrive),
        "barrier" if has("cluster") && has("wait") => Ok(Op::ClusterWait),
        "barrier" if has("cluster") => Err(format!("`{text}` is not interpreted").into()),
        "bar" | "barrier" if has("red") => match () {
            _ if has("popc") => Ok(Op::BarRed(Red::Popc)),
            _ if has("and") => Ok(Op::BarRed(Red::And)),
            _ if has("or") => Ok(Op::BarRed(Red::Or)),
            _ => Err(format!("`{text}` is not interpreted").into()),
        },
        "bar" | "barrier" if has("arrive") => Ok(Op::BarArrive),
        "bar" | "barrier" if has("sync") || quals.is_empty() => Ok(Op::Bar),
        "membar" | "fence" => Ok(Op::Fence),
        // Hints to the caches and the scheduler: what they change is where a line stays
        // and when a warp runs, never a value (`applypriority` only lowers a line's
        // standing in the L2). `discard` is not among them: the line's bytes become
        // indeterminate.
        "prefetch" | "prefetchu" | "applypriority" | "pmevent" | "nanosleep" => Ok(Op::Nop),
        "shfl" => {
            let m = match () {
                _ if has("up") => Shfl::Up,
                _ if has("down") => Shfl::Down,
                _ if has("bfly") => Shfl::Bfly,
                _ => Shfl::Idx,
            };
            Ok(Op::Shfl(m))
        }
        "vote" => Ok(Op::Vote(match () {
            _ if has("all") => Vote::All,
            _ if has("any") => Vote::Any,
            _ if has("uni") => Vote::Uni,
            _ => Vote::Ballot,
        })),
        "redux" if has("sync") => {
            let op = match () {
                _ if has("add") => Redux::Add,
                _ if has("min") => Redux::Min,
                _ if has("max") => Redux::Max,
                _ if has("and") => Redux::And,
                _ if has("or") => Redux::Or,
                _ if has("xor") => Redux::Xor,
                _ => return Err(format!("`{text}` is not interpreted").into()),
            };
            let ty = need()?;
            // The 32-bit integer forms; the floating ones (a newer architecture's) need a GPU.
            if ty.bits != 32 || ty.kind == Kind::F {
                return Err(format!("`{text}` is not interpreted").into());
            }
            Ok(Op::Redux(op, ty))
        }
        "activemask" => Ok(Op::Activemask),
        "createpolicy" => Ok(Op::CreatePolicy),
        "match" if has("any") => Ok(Op::MatchAny(need()?)),
        "cp" => async_copy(q),
        "mbarrier" => mbarrier(q),
        _ => Err(format!("`{text}` is not interpreted").into()),
    }
}

/// `cp.async` from global to shared memory, and its commit and wait.
fn async_copy(q: &Q) -> Result<Op, Unmodelled> {
    let text = q.text;
    match q.quals.get(1).copied() {
        Some("commit_group") => Ok(Op::CpCommit),
        Some("wait_group") => Ok(Op::CpWait { all: false }),
        Some("wait_all") => Ok(Op::CpWait { all: true }),
        Some("ca" | "cg") if q.has("global") && (q.has("shared") || q.has("shared::cta")) => {
            Ok(Op::CpAsync {
                hint: q.has("L2::cache_hint"),
            })
        }
        // The 1-D bulk copy into this block's shared memory, completing on an mbarrier; the
        // tensor (`.tensor`), multicast, prefetch and shared-to-global forms need a GPU.
        Some("bulk")
            if q.has("global")
                && q.quals.get(2).is_some_and(|s| s.starts_with("shared"))
                && q.has("mbarrier::complete_tx::bytes")
                && !q.quals.iter().any(|x| x.starts_with("multicast")) =>
        {
            Ok(Op::BulkCopy)
        }
        Some("bulk") => Err(format!(
            "`{text}`: of the bulk copies (TMA) only the 1-D copy from global into this \
             block's shared memory, completing on an mbarrier, is interpreted: this one needs \
             a GPU"
        )
        .into()),
        _ => Err(format!("`{text}` is not interpreted").into()),
    }
}

/// The transaction barrier's init, arrivals and parity waits.
fn mbarrier(q: &Q) -> Result<Op, Unmodelled> {
    let text = q.text;
    match q.quals.first().copied() {
        Some("init") => Ok(Op::MbarInit),
        Some("arrive") => Ok(Op::MbarArrive {
            expect_tx: q.has("expect_tx"),
        }),
        Some("try_wait" | "test_wait") => Ok(Op::MbarWait {
            token: !q.has("parity"),
        }),
        _ => Err(format!(
            "`{text}` is not interpreted (of the mbarrier instructions: init, arrive, \
             arrive.expect_tx and the waits)"
        )
        .into()),
    }
}

fn atom_op(quals: &[&str]) -> Option<AtomOp> {
    quals.iter().find_map(|q| {
        Some(match *q {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            _ => return None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_atomics_are_read_and_other_cluster_instructions_and_half_types_refused_saying_why() {
        let atom = parse_op("atom.relaxed.cluster.shared::cluster.add.u32");
        assert!(
            matches!(
                atom,
                Ok(Op::Atom {
                    space: Space::Cluster,
                    op: AtomOp::Add,
                    red: false,
                    ..
                })
            ),
            "{atom:?}"
        );
        let red = parse_op("red.shared::cluster.add.u32");
        assert!(matches!(red, Ok(Op::Atom { red: true, .. })), "{red:?}");
        let why =
            parse_op("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes")
                .unwrap_err()
                .to_string();
        assert!(why.contains("TMA"), "{why}");
        assert_eq!(
            parse_op("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"),
            Ok(Op::BulkCopy)
        );
        assert_eq!(
            parse_op("mbarrier.try_wait.parity.shared::cta.b64"),
            Ok(Op::MbarWait { token: false })
        );
        assert_eq!(
            parse_op("mbarrier.try_wait.shared::cta.b64"),
            Ok(Op::MbarWait { token: true })
        );
        assert!(parse_op("mbarrier.pending_count.b64").is_err());
        assert_eq!(
            parse_op("cp.async.cg.shared.global.L2::cache_hint"),
            Ok(Op::CpAsync { hint: true })
        );
        assert_eq!(parse_op("cp.async.wait_all"), Ok(Op::CpWait { all: true }));
        let why = parse_op("multimem.ld_reduce.relaxed.cluster.global.add.u32")
            .unwrap_err()
            .to_string();
        assert!(why.contains("atomics, mapa"), "{why}");
        for half in ["cvt.rn.f16.f32", "add.rn.bf16x2", "fma.rn.f16"] {
            let why = parse_op(half).unwrap_err().to_string();
            assert!(why.contains("half-precision"), "{half}: {why}");
        }
        // A 16-bit integer type is no half.
        assert!(parse_op("cvt.u32.u16").is_ok());
    }
}
