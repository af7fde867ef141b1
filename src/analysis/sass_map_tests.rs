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
            atomic: None,
        },
        PtxAccess {
            id: 8,
            line: 55,
            store: false,
            width: 4,
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
