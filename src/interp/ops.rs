//! The decoded form of an opcode: what it does and on which type, from `add.s32`,
//! `setp.lt.and.u32`, `ld.global.nc.v4.f32` and the like.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    U,
    S,
    F,
    B,
    Pred,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ty {
    pub kind: Kind,
    pub bits: u32,
}

/// The state space an instruction names: the model's one PTX state-space enum.
pub use crate::model::access::Space;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    /// `mul24.lo`/`mul24.hi`: the 48-bit product of the low 24 bits of each operand
    /// (signed for `.s32`), its bits 0-31 or 16-47.
    Mul24Lo,
    Mul24Hi,
    /// `add.sat.s32`/`sub.sat.s32`: clamped to the `s32` range instead of wrapping.
    AddSat,
    SubSat,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Copysign,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Un {
    Not,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
    /// `bfind`: the bit position of the most significant non-sign bit (all ones if none).
    Bfind,
    /// `bfind.shiftamt`: the left shift that puts that bit at the top instead.
    BfindShift,
    Cnot,
    Sqrt,
    Rcp,
    Rsqrt,
    Ex2,
    Lg2,
    Sin,
    Cos,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Floats: true when either is NaN (`equ`, `ltu` ...), or only `num`/`nan`.
    Unordered(u8),
    Num,
    Nan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rnd {
    None,
    /// Float to float or int to float: nearest-even, zero, down, up.
    Rn,
    Rz,
    Rm,
    Rp,
    /// Float to integer rounding (`rni`, `rzi`, `rmi`, `rpi`).
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Exch,
    Cas,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shfl {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Red {
    Popc,
    And,
    Or,
}

/// What `redux.sync` folds the lanes' values with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redux {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    All,
    Any,
    Uni,
    Ballot,
}

/// Which bf16 conversion `Op::CvtBf16` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bf16Cvt {
    /// One f32 to bf16, rounded to the nearest even.
    Narrow,
    /// Two f32 to a bf16 pair, the first operand's in the upper half.
    Pair,
    /// bf16 to f32, exactly.
    Widen,
}

/// The 16-bit float types the tensor cores take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrow {
    Bf16,
    F16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16` (`matrix`): how many
    /// matrices, and whether each lane gets a column's elements instead of a row's.
    LdMatrix {
        matrices: u8,
        trans: bool,
    },
    /// `mma.sync.aligned.m16n8k16.row.col.f32.T.T.f32` with 16-bit inputs of type T.
    Mma(Narrow),
    /// The bf16 conversions that feed the tensor cores: `cvt.rn.bf16.f32`,
    /// `cvt.rn.bf16x2.f32 d, a, b` (a's in the upper half) and `cvt.f32.bf16`.
    CvtBf16(Bf16Cvt),
    Bin(Bin, Ty),
    /// `mad.lo`/`mad.hi`/`mad.wide` (integers) and `fma`/`mad` (floats): a * b + c.
    Mad(Bin, Ty),
    Un(Un, Ty),
    Setp {
        cmp: Cmp,
        bool: Option<BoolOp>,
        ty: Ty,
    },
    Selp(Ty),
    Mov(Ty),
    Cvt {
        dst: Ty,
        src: Ty,
        rnd: Rnd,
        sat: bool,
    },
    Cvta {
        to: bool,
        space: Space,
    },
    Isspacep(Space),
    Ld {
        space: Space,
        ty: Ty,
        vec: u8,
    },
    St {
        space: Space,
        ty: Ty,
        vec: u8,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: Ty,
        red: bool,
    },
    Bfe(Ty),
    Bfi(Ty),
    /// `lop3.b32 d, a, b, c, lut`: each bit of `d` is the bit of `lut` that the bits of
    /// `a`, `b` and `c` there index (`a` the highest).
    Lop3,
    /// `prmt.b32{.mode} d, a, b, c`: the bytes of `d` picked from the eight of `b:a` as `c`
    /// selects them.
    Prmt(Prmt),
    Bra,
    /// Resolved by the decoder: callee and the caller's parameter offsets.
    Call,
    Ret,
    Exit,
    /// `trap`: the kernel ends with a fault, every thread of it.
    Trap,
    /// `bar.sync a{, b}`: wait at barrier `a` until `b` threads (all the block's without
    /// `b`) have arrived.
    Bar,
    /// `bar.arrive a, b`: count this warp's threads at barrier `a` and go on.
    BarArrive,
    BarWarp,
    /// `membar`/`fence`: the interpreter runs one block's threads at a time, so it orders
    /// nothing here; it is logged where the tracer follows it (a fence of the GPU's scope),
    /// for the analysis of values handed between blocks.
    Fence,
    Nop,
    /// An opcode the interpreter does not model (`opcode::parse_op` says why): refused
    /// when a lane runs it, not when the kernel is read, so that a form left in code no
    /// thread reaches (a branch never taken) cannot make a whole kernel one only a GPU
    /// judges.
    Unmodelled,
    Shfl(Shfl),
    Vote(Vote),
    /// `redux.sync` (`__reduce_add_sync` and the like): every member lane gets the fold of
    /// all members' values.
    Redux(Redux, Ty),
    /// `match.any.sync`: each lane gets the mask of the active lanes holding its value.
    MatchAny(Ty),
    Activemask,
    /// `createpolicy`: a cache-eviction policy for the L2's `.L2::cache_hint` loads and
    /// stores, which the interpreter keeps no cache to follow: an opaque 64-bit value.
    CreatePolicy,
    /// `bar.red` (`__syncthreads_count`, `_and`, `_or`): a block barrier that also reduces
    /// a predicate over the block's threads.
    BarRed(Red),
    /// `barrier.cluster.arrive` and `.wait`: the cluster's threads meet (split phases).
    ClusterArrive,
    ClusterWait,
    /// `mapa`: a shared address of this block, as the same variable of block `rank`;
    /// `generic` when it names no space (generic addresses in and out).
    Mapa {
        generic: bool,
    },
    /// `getctarank`: the rank of the block a shared::cluster (or generic) address names.
    Getctarank {
        generic: bool,
    },
    /// `cp.async.ca/.cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}`: an
    /// asynchronous copy of 4, 8 or 16 bytes a lane from global to shared memory, zero-filled
    /// past `src-size`; done at the wait that completes its group (`interp::copies`).
    /// `hint`: a cache-policy operand follows (`.L2::cache_hint`), not a source size.
    CpAsync {
        hint: bool,
    },
    /// `cp.async.commit_group`: the lane's copies since its last commit make one group.
    CpCommit,
    /// `cp.async.wait_group N` (`all`: `cp.async.wait_all`, a commit and a wait for every
    /// group): the lane's groups but the newest N are done.
    CpWait {
        all: bool,
    },
    /// `mbarrier.init [addr], count`: a transaction barrier awaiting `count` arrivals a
    /// phase (`interp::mbarrier`).
    MbarInit,
    /// `mbarrier.arrive{.expect_tx} state, [addr]{, n}`: an arrival (with `expect_tx`, and
    /// `n` bytes the phase must also receive).
    MbarArrive {
        expect_tx: bool,
    },
    /// `mbarrier.try_wait.parity`/`test_wait.parity p, [addr], parity`: whether the phase
    /// of that parity has completed; with `token`, the state form (`try_wait p, [addr],
    /// state`): whether the phase the arrival that gave `state` arrived in has completed.
    MbarWait {
        token: bool,
    },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src],
    /// size, [mbar]`: the 1-D bulk copy (TMA), done when a wait on its barrier looks.
    BulkCopy,
}

pub fn ty_of(q: &str) -> Option<Ty> {
    let (kind, bits) = match q {
        "pred" => (Kind::Pred, 1),
        "b8" => (Kind::B, 8),
        "u8" => (Kind::U, 8),
        "s8" => (Kind::S, 8),
        "b16" => (Kind::B, 16),
        "u16" => (Kind::U, 16),
        "s16" => (Kind::S, 16),
        "b32" => (Kind::B, 32),
        "u32" => (Kind::U, 32),
        "s32" => (Kind::S, 32),
        "f32" => (Kind::F, 32),
        "b64" => (Kind::B, 64),
        "u64" => (Kind::U, 64),
        "s64" => (Kind::S, 64),
        "f64" => (Kind::F, 64),
        _ => return None,
    };
    Some(Ty { kind, bits })
}

/// `prmt`'s modes: the general byte permute (`c`'s four nibbles pick a byte each, the
/// nibble's top bit replicating that byte's sign) or one of the fixed patterns `c`'s two
/// low bits select.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prmt {
    General,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}
