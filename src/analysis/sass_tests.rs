use super::*;

const LISTING: &str = include_str!("../../tests/fixtures/sass/banks_vec4.sass");

#[test]
fn a_real_listing_reads_into_instructions_with_lines() {
    let ls = parse(LISTING);
    assert_eq!(ls.len(), 1);
    let l = &ls[0];
    assert_eq!(l.kernel, "read_pattern");
    let ldg = l
        .instructions
        .iter()
        .find(|i| i.opcode.starts_with("LDG"))
        .unwrap();
    assert_eq!(ldg.opcode, "LDG.E.128.CONSTANT");
    assert_eq!(ldg.operands, "R4, desc[UR6][R4.64]");
    assert_eq!(
        ldg.mem(),
        Some(MemOp {
            kind: MemKind::GlobalLoad,
            bits: 128
        })
    );
    assert!(ldg.line.is_some());
    // Offsets are in code order, 16 bytes apart.
    assert!(
        l.instructions
            .windows(2)
            .all(|w| w[1].offset == w[0].offset + 16)
    );
    let m = mix(l);
    assert_eq!(m["LDS"], 8);
    assert_eq!(m["STS"], 1);
    let stg = l.instructions.iter().find(|i| i.base() == "STG").unwrap();
    assert_eq!(
        stg.mem(),
        Some(MemOp {
            kind: MemKind::GlobalStore,
            bits: 32
        })
    );
}

#[test]
fn guards_widths_and_spaces() {
    let i = instruction("/*0400*/   @!P0 LDS.U8 R4, [R5+UR4] ;", Some(12)).unwrap();
    assert_eq!(i.guard.as_deref(), Some("@!P0"));
    assert_eq!(
        i.mem(),
        Some(MemOp {
            kind: MemKind::SharedLoad,
            bits: 8
        })
    );
    assert_eq!(i.line, Some(12));
    let i = instruction("/*0410*/   LD.E.64 R4, [R6] ;", None).unwrap();
    assert_eq!(i.mem().unwrap().kind, MemKind::GenericLoad);
    assert_eq!(i.mem().unwrap().bits, 64);
    let i = instruction(
        "/*0418*/   LDGSTS.E.BYPASS.128 [R9], desc[UR6][R2.64] ;",
        None,
    )
    .unwrap();
    assert_eq!(i.mem().unwrap().kind, MemKind::GlobalToShared);
    assert_eq!(i.mem().unwrap().bits, 128);
    let i = instruction("/*041c*/   UBLKCP.S.G [UR8], [UR10], UR5 ;", None).unwrap();
    assert_eq!(i.mem().unwrap().kind, MemKind::BulkCopy);
    let i = instruction("/*0420*/   FFMA R1, R2, R3, R1 ;", None).unwrap();
    assert_eq!(i.mem(), None);
    assert_eq!(i.base(), "FFMA");
    assert!(instruction("//## File \"k.cu\", line 3", None).is_none());
}

#[test]
fn memory_instructions_group_by_line_kind_and_width() {
    let l = &parse(LISTING)[0];
    let g = memory_by_line(l);
    let shared_128: u32 = g
        .iter()
        .filter(|((_, k, b), _)| *k == MemKind::SharedLoad && *b == 128)
        .map(|(_, n)| n)
        .sum();
    assert_eq!(shared_128, 8);
}
