//! A large output is judged on the GPU (`worker::device_compare`) with the verdict and the
//! words of the host's comparison (`worker::outputs::compare`): both are asked about the
//! same outputs, of every element type, with wrong elements placed early, late and at the
//! tolerance's edge, NaNs and never-written (poisoned) ones. The kernel builds with NVRTC
//! anywhere; the comparison itself needs a GPU and skips, saying why, without one.

use crate::support::common;

use common::nvrtc_or_skip;
use gpulab::cuda::gpu::Gpu;
use gpulab::model::builder::LessonBuilder;
use gpulab::model::{Buffer, ElemType, Init, Lesson, Tolerance};
use gpulab::worker::device_compare;
use gpulab::worker::hostdata::HostData;
use gpulab::worker::launch::{Buffers, Staged};
use gpulab::worker::outputs;

#[test]
fn the_comparison_kernels_build() {
    if !nvrtc_or_skip("the_comparison_kernels_build") {
        return;
    }
    device_compare::check_build("sm_90").unwrap();
}

/// A lesson of one buffer shaped like `data`: uploaded as an input, so the GPU holds
/// exactly these values as "the output".
fn holding(data: &HostData) -> Lesson {
    let ty = match data {
        HostData::F32(_) => ElemType::F32,
        HostData::F64(_) => ElemType::F64,
        HostData::I32(_) => ElemType::I32,
        HostData::U32(_) => ElemType::U32,
        HostData::U64(_) => ElemType::U64,
    };
    let mut l = LessonBuilder::new("compare").build();
    l.buffers = vec![Buffer {
        name: "out".into(),
        ty,
        len: data.len() as u64,
        init: Init::Zeros,
        gpu: 0,
        memory: Default::default(),
    }];
    l
}

fn both(gpu: &Gpu, got: HostData, want: &HostData, tol: &Tolerance) -> (String, String) {
    let lesson = holding(&got);
    let host = outputs::compare("out", &got, want, tol);
    let staged = Staged::new(gpu, &lesson, std::slice::from_ref(&got));
    let mut bufs = Buffers::upload(gpu, &lesson, vec![got], false, staged).unwrap();
    let arch = format!("sm_{}", gpu.info().cc.replace('.', ""));
    let device = device_compare::compare(gpu, &arch, &lesson, &mut bufs, (0, want), tol)
        .unwrap()
        .expect("room on the GPU for a few MiB");
    (format!("{host:?}"), format!("{device:?}"))
}

/// Floats built to sit on both sides of the tolerance's bar, and the special values.
fn floats(n: usize) -> (Vec<f64>, Vec<f64>) {
    let want: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
    let mut got = want.clone();
    let t = Tolerance::default();
    for k in [0, 1, n / 3, n - 2, n - 1] {
        let bar = t.abs + t.rel * want[k].abs();
        got[k] = want[k] + bar * if k % 2 == 0 { 0.999 } else { 1.001 };
    }
    got[n / 2] = f64::NAN;
    got[n / 5] = f64::from_bits(u64::MAX);
    got[n / 7] = f64::INFINITY;
    (got, want)
}

#[test]
fn the_gpu_judges_every_output_as_the_host_does() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: no GPU ({e})");
            return;
        }
    };
    let n = (1 << 20) + 37;
    let t = Tolerance::default();
    let (g, w) = floats(n);
    let cases: Vec<(HostData, HostData)> = vec![
        (HostData::F64(w.clone()), HostData::F64(w.clone())),
        (HostData::F64(g.clone()), HostData::F64(w.clone())),
        (
            HostData::F32(g.iter().map(|&x| x as f32).collect()),
            HostData::F32(w.iter().map(|&x| x as f32).collect()),
        ),
        (
            HostData::F32(vec![f32::from_bits(0xFFFF_FFFF); n]),
            HostData::F32(vec![1.0; n]),
        ),
        (
            HostData::U32(
                (0..n as u32)
                    .map(|i| if i == n as u32 - 3 { 0xDEAD_BEEF } else { i })
                    .collect(),
            ),
            HostData::U32((0..n as u32).collect()),
        ),
        (
            HostData::I32(
                (0..n as i32)
                    .map(|i| if i % 100_003 == 7 { -i } else { i })
                    .collect(),
            ),
            HostData::I32((0..n as i32).collect()),
        ),
        (
            HostData::U64((0..n as u64).map(|i| i << 33).collect()),
            HostData::U64(
                (0..n as u64)
                    .map(|i| if i == 1 { 5 } else { i << 33 })
                    .collect(),
            ),
        ),
        (HostData::U32(vec![1; n]), HostData::U32(vec![1; n - 1])),
    ];
    for (got, want) in cases {
        let (host, device) = both(&gpu, got, &want, &t);
        assert_eq!(device, host);
    }
}

/// Inputs large enough to be staged in pinned memory before their upload arrive byte for
/// byte, as those uploaded from pageable memory do.
#[test]
fn staged_and_pageable_uploads_land_the_same_bytes() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: no GPU ({e})");
            return;
        }
    };
    for n in [1000usize, (9 << 20) / 4 + 3] {
        let data: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let got = HostData::U32(data.clone());
        let lesson = holding(&got);
        let staged = Staged::new(&gpu, &lesson, std::slice::from_ref(&got));
        assert_eq!(staged.pinned(), usize::from(n * 4 >= 8 << 20), "{n} words");
        let bufs = Buffers::upload(&gpu, &lesson, vec![got], false, staged).unwrap();
        let back: Vec<u32> = bufs.dev[0].download(n).unwrap();
        assert!(back == data, "{n} words");
    }
}

/// Inputs of one word over and over (zeros, a constant) are filled on the GPU, not
/// uploaded, and hold the bytes the host's copy holds.
#[test]
fn inputs_of_one_word_are_filled_on_the_gpu_with_the_host_s_bytes() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: no GPU ({e})");
            return;
        }
    };
    let n = (9 << 20) / 4 + 3;
    for (init, ty) in [
        (Init::Zeros, ElemType::U64),
        (Init::Const(3.0), ElemType::U32),
        (Init::Const(-1.5), ElemType::F32),
    ] {
        let mut lesson = holding(&HostData::U32(vec![0; 1]));
        lesson.buffers[0] = Buffer {
            name: "in".into(),
            ty,
            len: n as u64,
            init: init.clone(),
            gpu: 0,
            memory: Default::default(),
        };
        let got = gpulab::worker::hostdata::generate(&lesson.buffers[0], 7);
        let staged = Staged::new(&gpu, &lesson, std::slice::from_ref(&got));
        assert_eq!(
            (staged.pinned(), staged.filled()),
            (0, 1),
            "{init:?}: filled, not staged"
        );
        let want: Vec<u32> = (got.to_le_bytes().chunks(4))
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let bufs = Buffers::upload(&gpu, &lesson, vec![got], false, staged).unwrap();
        let back: Vec<u32> = bufs.dev[0].download(want.len()).unwrap();
        assert!(back == want, "{init:?} {ty:?}");
    }
}

/// Inputs that live in host memory (mapped and managed) are allocated and written before
/// the upload's turn, outside it, and the upload takes them as they are (the host lesson's
/// live runs check that kernels read them right).
#[test]
fn host_memory_inputs_are_made_before_the_upload_and_kept_by_it() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("skipped: no GPU ({e})");
            return;
        }
    };
    for memory in [
        gpulab::model::host::Memory::Mapped,
        gpulab::model::host::Memory::Managed,
    ] {
        let got = HostData::U32((0..4099u32).map(|i| i.wrapping_mul(40_503)).collect());
        let mut lesson = holding(&got);
        lesson.buffers[0].memory = memory;
        lesson.buffers[0].init = Init::Seq;
        let staged = Staged::new(&gpu, &lesson, std::slice::from_ref(&got));
        assert_eq!(
            (staged.pinned(), staged.in_host_memory()),
            (0, 1),
            "{memory:?}"
        );
        let bufs = Buffers::upload(&gpu, &lesson, vec![got], false, staged).unwrap();
        let kept = bufs.host[0].as_ref().expect("kept in host memory");
        assert_ne!(kept.device_address(), 0, "{memory:?}");
        assert_eq!(
            bufs.dev[0].bytes(),
            4,
            "{memory:?}: a placeholder on the device"
        );
    }
}
