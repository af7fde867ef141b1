use super::*;
use crate::model::builder::{LessonBuilder, variant};
use crate::model::{Buffer, ElemType, Init};

fn buffer(name: &str, len: u64, init: Init) -> Buffer {
    Buffer {
        name: name.into(),
        ty: ElemType::F32,
        len,
        init,
        gpu: 0,
        memory: Default::default(),
    }
}

fn h100() -> DeviceInfo {
    DeviceInfo {
        name: "H100".into(),
        cc: "9.0".into(),
        regs_per_sm: 65536,
        smem_per_block_optin: 227 << 10,
        total_mem: 80 << 30,
        ..Default::default()
    }
}

fn too_big() -> Lesson {
    let mut l = LessonBuilder::new("big").variant("copy").build();
    l.buffers = vec![
        buffer("in", 1024, Init::Random { lo: 0.0, hi: 1.0 }),
        buffer("out", 50 << 30, Init::Poison),
    ];
    l
}

#[test]
fn sizes_read_as_people_write_them() {
    assert_eq!(size(200 << 30), "200 GiB");
    assert_eq!(size(227 << 10), "227 KiB");
    assert_eq!(size(1536 << 20), "1.5 GiB");
    assert_eq!(size(96), "96 B");
}

#[test]
fn a_buffer_larger_than_the_free_memory_is_named_with_both_sizes() {
    let l = too_big();
    let why = check_memory(&l, 139 << 30, None).unwrap_err().to_string();
    assert_eq!(why, "buffer `out` needs 200 GiB, the GPU has 139 GiB free");
    let why = check_memory(&l, 300 << 30, Some(16 << 30))
        .unwrap_err()
        .to_string();
    assert!(why.contains("host memory"), "{why}");
    assert!(check_memory(&l, 300 << 30, Some(1 << 40)).is_ok());
    let w = warnings(&l, &h100(), "the H100 it was recorded on");
    assert_eq!(
        w,
        vec!["buffer `out` needs 200 GiB, the H100 it was recorded on has 80 GiB"]
    );
    let old = DeviceInfo {
        name: "NVIDIA H100 80GB HBM3".into(),
        ..Default::default()
    };
    assert_eq!(total_mem(&old), 80 << 30);
}

#[test]
fn a_launch_over_a_limit_names_the_limit_and_the_numbers() {
    let dev = h100();
    let mut v = variant("v");
    assert!(check_launch(&v, &dev, None).is_ok());
    v.smem = 1 << 20;
    let why = check_launch(&v, &dev, None).unwrap_err().to_string();
    assert!(why.contains("1 MiB of dynamic shared memory"), "{why}");
    assert!(why.contains("227 KiB per block"), "{why}");
    v.smem = 0;
    v.block = [2048, 1, 1];
    assert!(
        check_launch(&v, &dev, None)
            .unwrap_err()
            .to_string()
            .contains("at most 1024")
    );
    v.block = [1024, 1, 1];
    let report = PtxasReport {
        registers: 128,
        ..Default::default()
    };
    let why = check_launch(&v, &dev, Some(&report))
        .unwrap_err()
        .to_string();
    assert!(why.contains("128 registers"), "{why}");
    assert!(why.contains("at most 65536"), "{why}");
}

#[test]
fn sizes_past_a_gib_read_in_tib_and_pib() {
    assert_eq!(size(4_000_000_000_000_000), "3.6 PiB");
    assert_eq!(size(3 << 40), "3 TiB");
}

#[test]
fn shared_memory_per_block_is_the_architectures_own() {
    assert_eq!(smem_per_block("sm_90"), Some(227 << 10));
    assert_eq!(smem_per_block("sm_90a"), Some(227 << 10));
    assert_eq!(smem_per_block("sm_80"), Some(163 << 10));
    assert_eq!(smem_per_block("sm_86"), Some(99 << 10));
    assert_eq!(smem_per_block("sm_75"), Some(64 << 10));
    assert_eq!(smem_per_block("sm_120"), Some(99 << 10));
    assert_eq!(smem_per_block("sm_60"), None);
    assert_eq!(smem_per_block("compute_90"), None);
}
