use super::*;
use crate::analysis::sass::parse;

const XZ: &str = include_str!("../../tests/fixtures/sass/wide_xz.sass");
const X: &str = include_str!("../../tests/fixtures/sass/wide_x.sass");

/// The calibration kernel's accesses as its PTX has them: two 16-byte stores (lines 39
/// and 40) and one 16-byte load in the loop (line 55).
fn ptx() -> Vec<PtxAccess> {
    let a = |id, line, store| PtxAccess {
        id,
        line,
        store,
        width: 16,
        addr: None,
        atomic: None,
    };
    vec![a(0, 39, true), a(1, 40, true), a(2, 55, false)]
}

#[test]
fn a_vector_load_of_which_two_words_are_used_becomes_two_pieces() {
    let l = &parse(XZ)[0];
    let r = reshape(&ptx(), l);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].id, 2);
    let p = |offset, width| Piece { offset, width };
    assert_eq!(r[0].pieces, vec![p(0, 4), p(8, 4)]);
    assert_eq!(
        r[0].note,
        "ptxas split this 16-byte load into two 4-byte loads (LDS at +0, +8)"
    );
}

#[test]
fn a_vector_load_of_which_one_word_is_used_is_narrowed() {
    let l = &parse(X)[0];
    let r = reshape(&ptx(), l);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        r[0].pieces,
        vec![Piece {
            offset: 0,
            width: 4
        }]
    );
    assert!(
        r[0].note
            .contains("narrowed this 16-byte load to one 4-byte load")
    );
}

#[test]
fn accesses_the_sass_makes_as_the_ptx_says_are_left_alone() {
    let l = &parse(XZ)[0];
    let stores: Vec<PtxAccess> = ptx().into_iter().filter(|a| a.store).collect();
    assert!(reshape(&stores, l).is_empty(), "STS.128 is the PTX's store");
    // Two PTX loads on one line with two SASS loads: nothing says which is which.
    let two = vec![
        PtxAccess {
            id: 7,
            line: 55,
            store: false,
            width: 4,
            addr: None,
            atomic: None,
        },
        PtxAccess {
            id: 8,
            line: 55,
            store: false,
            width: 4,
            addr: None,
            atomic: None,
        },
    ];
    assert!(reshape(&two, l).is_empty());
    // SASS wider than the PTX access cannot be a part of it.
    let narrow = vec![PtxAccess {
        id: 9,
        line: 55,
        store: false,
        width: 2,
        addr: None,
        atomic: None,
    }];
    assert!(reshape(&narrow, l).is_empty());
}

#[test]
fn the_constant_of_an_address_is_read_in_hex_with_its_sign() {
    assert_eq!(immediate("R3, [R2+UR4+0x8]"), 8);
    assert_eq!(immediate("R3, [R2+-0x10]"), -16);
    assert_eq!(immediate("R3, [R2-0x10]"), -16);
    assert_eq!(immediate("R3, [R2+UR4]"), 0);
    assert_eq!(immediate("[R0+0x200], R8"), 0x200);
    assert_eq!(immediate("R3, R4"), 0);
}

/// A PTX atomic of the calibration kernel (tests/fixtures/atomics/kernels/atomics.cu) on
/// `line`, as the tracer hands it over.
fn atomic(id: u32, line: u32, cas: bool) -> PtxAccess {
    PtxAccess {
        id,
        line,
        store: false,
        width: 4,
        addr: None,
        atomic: Some(PtxAtomic {
            kind: AccessKind::Atomic,
            cas,
        }),
    }
}

fn atomic_of(listing: &str, line: u32) -> Reshape {
    let l = &parse(listing)[0];
    let r = reshape(&[atomic(3, line, false)], l);
    assert_eq!(r.len(), 1, "{r:?}");
    r.into_iter().next().unwrap()
}

fn sass_of(listing: &str, line: u32) -> AtomicSass {
    atomic_of(listing, line).atomic.expect("an atomic's shape")
}

const S_UNIFORM: &str = include_str!("../../tests/fixtures/sass/atomics_s-int-uniform.sass");
const S_UNIFORM_USED: &str =
    include_str!("../../tests/fixtures/sass/atomics_s-int-uniform-used.sass");
const S_F32: &str = include_str!("../../tests/fixtures/sass/atomics_s-f32-banks.sass");
const S_INC: &str = include_str!("../../tests/fixtures/sass/atomics_s-inc-pairs.sass");
const G_USED: &str = include_str!("../../tests/fixtures/sass/atomics_g-int-spread-used.sass");
const G_INC: &str = include_str!("../../tests/fixtures/sass/atomics_g-inc-contended.sass");

#[test]
fn an_add_on_an_address_ptxas_proved_uniform_is_warp_aggregated() {
    // REDUX.SUM of the lanes' values, then the leader's ATOMS.
    let s = sass_of(S_UNIFORM, 77);
    assert_eq!(s.shape, AtomShape::WarpAggregated);
    assert_eq!(
        (s.kind, s.opcode.as_str()),
        (AccessKind::Atomic, "ATOMS.ADD")
    );
    assert!(
        atomic_of(S_UNIFORM, 77)
            .note
            .contains("aggregated this atomic over the warp")
    );
    // A constant 1 to one global word: POPC of the active lanes, the leader's REDG.
    let g = sass_of(G_INC, 97);
    assert_eq!(
        (g.shape, g.kind),
        (AtomShape::WarpAggregated, AccessKind::Reduction)
    );
    assert_eq!(g.same_word, SameWord::Serialise);
}

#[test]
fn a_used_result_on_a_uniform_address_is_aggregated_only_for_a_full_warp() {
    let s = sass_of(S_UNIFORM_USED, 75);
    assert_eq!(s.shape, AtomShape::AggregatedWhenFull);
    assert_eq!(s.opcode, "ATOMS.ADD + ATOMS.ADD");
}

#[test]
fn a_shared_float_add_is_a_cas_loop_and_an_atom_cas_is_not() {
    let s = sass_of(S_F32, 77);
    assert_eq!((s.shape, s.kind), (AtomShape::CasLoop, AccessKind::Atomic));
    let l = &parse(S_F32)[0];
    let cas = reshape(&[atomic(3, 77, true)], l);
    assert_eq!(cas[0].atomic.as_ref().unwrap().shape, AtomShape::AsWritten);
}

#[test]
fn plain_atomics_keep_their_lanes_and_say_which_sass_makes_them() {
    let inc = sass_of(S_INC, 77);
    assert_eq!(inc.shape, AtomShape::AsWritten);
    assert_eq!(
        (inc.opcode.as_str(), inc.same_word),
        ("ATOMS.POPC.INC.32", SameWord::Merge)
    );
    let used = sass_of(G_USED, 95);
    assert_eq!(
        (used.shape, used.kind),
        (AtomShape::AsWritten, AccessKind::Atomic)
    );
    // The PTX says `atom` for both; the SASS without a used result is a reduction.
    let red = sass_of(G_INC, 97);
    assert_eq!(red.kind, AccessKind::Reduction);
}

#[test]
fn atomics_the_sass_does_not_pair_up_are_counted_as_the_ptx_has_them() {
    // Two PTX atomics on a line whose SASS has one: which is which cannot be told.
    let l = &parse(G_USED)[0];
    let r = reshape(&[atomic(3, 95, false), atomic(4, 95, false)], l);
    assert_eq!(r.len(), 2);
    for x in &r {
        let a = x.atomic.as_ref().unwrap();
        assert_eq!((a.shape, a.opcode.as_str()), (AtomShape::AsWritten, ""));
        assert!(
            x.note.contains("1 atomic in the SASS for 2 in the PTX"),
            "{}",
            x.note
        );
    }
    // A line with no atomic in the SASS at all (another line's).
    let none = reshape(&[atomic(5, 40, false)], l);
    assert_eq!(none[0].atomic.as_ref().unwrap().kind, AccessKind::Atomic);
    // Loads and stores on other lines are left to the split rules.
    assert!(reshape(&ptx(), l).is_empty());
}

/// NVVM loads the upper half of a `float4` again (`ld.shared.v4 [%rd42]`, then
/// `ld.shared.v2 [%rd42+8]`, both on one line), and ptxas reads it once: the line's SASS
/// is one `LDS.128` per `ld.shared.v4`.
const RELOADED: &str = "\t.target\tsm_90
\t.section\t.text.k,\"ax\",@progbits
        .global         k
k:
.text.k:
\t//## File \"k.cu\", line 42
        /*0000*/                   LDS.128 R4, [R2+UR4] ;
        /*0010*/                   LDS.128 R8, [R2+UR4+0x210] ;
\t//## File \"k.cu\", line 44
        /*0020*/                   LDS.128 R12, [R3+UR4] ;
        /*0030*/                   LDS.128 R16, [R3+UR4+0x200] ;
        /*0040*/                   EXIT ;
.L_x_1:
";

fn load(id: u32, line: u32, width: u32, addr: &str) -> PtxAccess {
    PtxAccess {
        id,
        line,
        store: false,
        width,
        addr: PtxAddr::of(addr),
        atomic: None,
    }
}

#[test]
fn a_load_of_bytes_another_load_of_the_line_read_makes_no_instruction() {
    let l = &parse(RELOADED)[0];
    let ptx = vec![
        load(10, 42, 16, "%rd42"),
        load(11, 42, 8, "%rd42+8"),
        load(12, 42, 16, "%rd42+528"),
        load(13, 44, 16, "%rd45"),
        load(14, 44, 16, "%rd45+512"),
    ];
    let r = reshape(&ptx, l);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].id, 11);
    assert!(r[0].pieces.is_empty());
    assert!(
        r[0].note.contains("reads these 8 bytes once"),
        "{}",
        r[0].note
    );
}

#[test]
fn a_load_is_a_reload_only_of_the_same_register_inside_the_other_and_when_the_sass_agrees() {
    let l = &parse(RELOADED)[0];
    // Another register: two distinct reads, so the SASS count does not say which is gone.
    let other = vec![
        load(10, 42, 16, "%rd42"),
        load(11, 42, 8, "%rd43+8"),
        load(12, 42, 16, "%rd42+528"),
    ];
    assert!(reshape(&other, l).is_empty());
    // Past the end of the wider load: bytes of its own.
    let past = vec![
        load(10, 42, 16, "%rd42"),
        load(11, 42, 8, "%rd42+12"),
        load(12, 42, 16, "%rd42+528"),
    ];
    assert!(reshape(&past, l).is_empty());
    // As many SASS loads as PTX loads: nothing was read once.
    let kept = vec![load(10, 42, 16, "%rd42"), load(11, 42, 16, "%rd42")];
    assert!(reshape(&kept, l).is_empty());
    // Without the SASS's count the line is left as the PTX says.
    let three = vec![
        load(10, 42, 16, "%rd42"),
        load(11, 42, 8, "%rd42+8"),
        load(12, 42, 8, "%rd42"),
        load(15, 42, 16, "%rd42+528"),
    ];
    assert_eq!(reshape(&three, l).len(), 2, "two reloads, two LDS.128 left");
}

#[test]
fn an_address_operand_reads_as_a_register_and_a_constant() {
    let a = |base: &str, offset| {
        Some(PtxAddr {
            base: base.into(),
            offset,
        })
    };
    assert_eq!(PtxAddr::of("%rd42+8"), a("%rd42", 8));
    assert_eq!(PtxAddr::of("%r5"), a("%r5", 0));
    assert_eq!(PtxAddr::of("%r5+-4"), a("%r5", -4));
    assert_eq!(PtxAddr::of("smem"), None);
    assert_eq!(PtxAddr::of("%r5+x"), None);
}
