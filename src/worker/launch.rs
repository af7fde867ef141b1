//! A lesson's buffers on the GPU, and launching a variant over them: arguments, the
//! poison that marks unwritten outputs, copies both ways, and occupancy.

use crate::analysis::occupancy;
use crate::cuda::error::CudaError;
use crate::cuda::gpu::Gpu;
use crate::cuda::host_memory::{self, HostStage, Managed, PinnedHost};
use crate::cuda::launch_ex::Attr;
use crate::cuda::memory::DevBuf;
use crate::cuda::module::{ArgValue, Kernel, Launch};
use crate::cuda::texture::TexObject;
use crate::model::host::Memory;
use crate::model::results::{Occupancy, PtxasReport};
use crate::model::{Arg, ElemType, Lesson, Variant};
use crate::worker::hostdata::HostData;

/// Every buffer of the lesson: the host copy it started from and its device memory.
/// The guard zone past each output when a run asks for one: more than a block of 256
/// doubles, and more than a launch rounded up to whole blocks can overrun by.
pub const GUARD_BYTES: usize = 64 << 10;

pub struct Buffers {
    pub host_inputs: Vec<HostData>,
    pub dev: Vec<DevBuf>,
    /// The lesson's texture objects, made from `host_inputs`.
    pub textures: Vec<TexObject>,
    /// The second GPU, opened only when a buffer lives there (`gpu: 1`); its buffers keep
    /// its context alive, this keeps it for the lesson.
    pub peer: Option<Gpu>,
    /// The expected outputs judged on the GPU (`device_compare`), uploaded once on these
    /// inputs.
    pub expected_dev: super::device_compare::OnDevice,
    /// By buffer, the host memory of those that live off the device (`memory: mapped` or
    /// `managed`), whose `dev` entry is then a one-word placeholder; None for the others.
    pub host: Vec<Option<HostMem>>,
}

/// An input buffer's memory when it is not the GPU's own.
pub enum HostMem {
    Mapped(PinnedHost),
    Managed(Managed),
}

impl HostMem {
    /// Where the buffer's bytes are host memory: that memory with `data` in it; None for
    /// a device buffer.
    pub fn new(gpu: &Gpu, memory: Memory, data: &HostData) -> Result<Option<HostMem>, CudaError> {
        // Only memory the host holds needs the bytes: a device buffer's inputs are
        // uploaded as they are (a GiB copied here for nothing cost seconds in a turn).
        if memory == Memory::Device {
            return Ok(None);
        }
        let bytes = data.to_le_bytes();
        Ok(match memory {
            Memory::Device => None,
            Memory::Mapped => {
                let mut p = PinnedHost::new(gpu, bytes.len(), true)?;
                p.as_mut_slice().copy_from_slice(&bytes);
                Some(HostMem::Mapped(p))
            }
            Memory::Managed => {
                let mut m = Managed::new(gpu, bytes.len())?;
                m.write(&bytes)?;
                Some(HostMem::Managed(m))
            }
        })
    }

    pub fn device_address(&self) -> u64 {
        match self {
            HostMem::Mapped(p) => p.device_address(),
            HostMem::Managed(m) => m.device_address(),
        }
    }
}

/// Device inputs at least this large are staged in pinned memory before their upload.
const STAGE_MIN_BYTES: usize = 8 << 20;

/// What is made of an input on the host before its upload's turn on the GPU, by buffer
/// index: large device inputs copied into pinned host memory, inputs of one word over and
/// over found (filled on the GPU instead), and the memory of inputs that live off the
/// device (`memory: mapped` or `managed`), allocated and written. From
/// pageable memory the driver stages a copy itself, a piece at a time, inside the
/// upload's turn (about 1.3 GB/s measured on an H200's host); from pinned memory the copy
/// engine reads at the link's speed. Pinning, allocating and copying cost the host time,
/// but outside the turn, where other learners' work is not held up by it: none of it
/// runs on the GPU, whose timed runs it would slow.
#[derive(Default)]
pub struct Staged(Vec<Option<Prepared>>);

enum Prepared {
    /// A device input's bytes, pinned for its copy.
    Pinned(PinnedHost),
    /// A device input that is one word over and over (`HostData::one_word`): made where
    /// it lies, at the GPU's memory speed, the same bytes as a copy would land (crossing
    /// the link took seconds a GiB).
    Fill(u32),
    /// An input that lives in host memory, ready for the kernel to reach.
    Host(HostMem),
}

impl Staged {
    /// Stages what is worth it; a buffer that cannot be pinned or allocated here (a
    /// locked-memory limit) is left to the upload, which says why if it fails too.
    pub fn new(gpu: &Gpu, lesson: &Lesson, host_inputs: &[HostData]) -> Staged {
        let staged = (lesson.buffers.iter().zip(host_inputs))
            .map(|(b, h)| {
                if b.memory != Memory::Device {
                    return HostMem::new(gpu, b.memory, h)
                        .ok()
                        .flatten()
                        .map(Prepared::Host);
                }
                let bytes = b.bytes() as usize;
                let whole = !b.is_output() && h.len() * b.ty.size() == bytes;
                if !whole {
                    return None;
                }
                if let Some(word) = h.one_word() {
                    return Some(Prepared::Fill(word));
                }
                if b.gpu == 1 || bytes < STAGE_MIN_BYTES {
                    return None;
                }
                let mut p = PinnedHost::new(gpu, bytes, false).ok()?;
                h.write_le(p.as_mut_slice());
                Some(Prepared::Pinned(p))
            })
            .collect();
        Staged(staged)
    }

    /// How many device inputs are staged in pinned memory.
    pub fn pinned(&self) -> usize {
        (self.0.iter().flatten())
            .filter(|p| matches!(p, Prepared::Pinned(_)))
            .count()
    }

    /// How many device inputs are filled on the GPU, each one word over and over.
    pub fn filled(&self) -> usize {
        (self.0.iter().flatten())
            .filter(|p| matches!(p, Prepared::Fill(_)))
            .count()
    }

    /// What the upload will copy over the link, in bytes, and how much of it from pinned
    /// memory: the stage a learner sees names both (a slow upload is a pageable one).
    pub fn link_bytes(&self, lesson: &Lesson) -> (u64, u64) {
        let copied = (lesson.buffers.iter().zip(&self.0))
            .filter(|(b, p)| {
                b.memory == Memory::Device
                    && !b.is_output()
                    && !matches!(p, Some(Prepared::Fill(_)))
            })
            .map(|(b, _)| b.bytes())
            .sum();
        let pinned = (self.0.iter().flatten())
            .map(|p| match p {
                Prepared::Pinned(p) => p.bytes() as u64,
                _ => 0,
            })
            .sum();
        (copied, pinned)
    }

    /// How many inputs that live in host memory are made and written already.
    pub fn in_host_memory(&self) -> usize {
        (self.0.iter().flatten())
            .filter(|p| matches!(p, Prepared::Host(_)))
            .count()
    }
}

impl Buffers {
    /// The inputs `host_inputs` (one per buffer, made by `hostdata::generate`), uploaded
    /// (from `staged` where it holds them); outputs only allocated (they are poisoned
    /// before every launch).
    pub fn upload(
        gpu: &Gpu,
        lesson: &Lesson,
        host_inputs: Vec<HostData>,
        guard: bool,
        staged: Staged,
    ) -> Result<Buffers, CudaError> {
        let mut staged = staged.0.into_iter();
        let peer = match lesson.buffers.iter().any(|b| b.gpu == 1) {
            true => Some(gpu.open_peer()?),
            false => None,
        };
        let mut bufs = Buffers {
            host_inputs: Vec::new(),
            dev: Vec::new(),
            textures: Vec::new(),
            peer,
            expected_dev: Default::default(),
            host: Vec::new(),
        };
        let mut pinned_copies = Vec::new();
        let mut filled = false;
        for (b, h) in lesson.buffers.iter().zip(host_inputs) {
            let (mut pinned, mut fill) = (None, None);
            let off_device = match staged.next().flatten() {
                Some(Prepared::Pinned(p)) => {
                    pinned = Some(p);
                    None
                }
                Some(Prepared::Fill(word)) => {
                    fill = Some(word);
                    None
                }
                Some(Prepared::Host(m)) => Some(m),
                None => HostMem::new(gpu, b.memory, &h)?,
            };
            if off_device.is_some() {
                // Kernels reach it at its own address; the placeholder keeps the indices.
                bufs.dev.push(gpu.alloc(4)?);
                bufs.host_inputs.push(h);
                bufs.host.push(off_device);
                continue;
            }
            bufs.host.push(None);
            let on = match (b.gpu, &bufs.peer) {
                (1, Some(p)) => p,
                _ => gpu,
            };
            let zone = if guard && b.is_output() {
                GUARD_BYTES
            } else {
                0
            };
            let mut d = on.alloc(b.bytes() as usize + zone)?;
            match pinned {
                // Only this GPU's buffers are staged; their copies are waited for below.
                Some(p) => {
                    let stage = HostStage::Pinned(p);
                    host_memory::copy_to_device(gpu, &d, &stage)?;
                    pinned_copies.push(stage);
                }
                _ if b.is_output() => {}
                _ => match fill {
                    Some(word) => {
                        d.fill_u32(word)?;
                        filled = true;
                    }
                    None => upload(&mut d, &h)?,
                },
            }
            bufs.host_inputs.push(h);
            bufs.dev.push(d);
        }
        // The peer's copies are queued on its own stream; the kernels run on this GPU's.
        if let Some(p) = &bufs.peer {
            p.synchronize()?;
        }
        // The pinned copies and the fills are asynchronous: the copies' host memory lives
        // until they are done, and both are done within the upload's turn.
        if !pinned_copies.is_empty() || filled {
            gpu.synchronize()?;
        }
        drop(pinned_copies);
        bufs.textures = super::textures::create(gpu, lesson, &bufs.host_inputs)?;
        Ok(bufs)
    }

    pub fn poison_outputs(&mut self, lesson: &Lesson) -> Result<(), CudaError> {
        for (b, d) in lesson.buffers.iter().zip(&mut self.dev) {
            if b.is_output() {
                d.fill_u32(b.ty.poison_bits())?;
            }
        }
        // A peer buffer is poisoned on the peer's stream: done before this GPU's kernel runs.
        if let Some(p) = &self.peer {
            p.synchronize()?;
        }
        Ok(())
    }

    /// What was written into the guard zones past the outputs' ends, in words; empty when
    /// nothing was (or there are no zones).
    pub fn overruns(&self, lesson: &Lesson) -> Result<Vec<String>, CudaError> {
        let mut out = Vec::new();
        for (j, (b, d)) in lesson.buffers.iter().zip(&self.dev).enumerate() {
            let own = b.bytes() as usize;
            if !b.is_output() || lesson.is_measured(j) || d.bytes() <= own {
                continue;
            }
            let words: Vec<u32> = d.download_at(own, (d.bytes() - own) / 4)?;
            let poison = b.ty.poison_bits();
            if let Some(k) = words.iter().position(|&w| w != poison) {
                let at = b.len as usize + k * 4 / b.ty.size();
                out.push(format!(
                    "wrote past the end of `{}` (element {at}; it has {}): a missing bounds check?",
                    b.name, b.len
                ));
            }
        }
        Ok(out)
    }

    /// Buffer `i` as it is on the GPU now.
    pub fn download(&self, lesson: &Lesson, i: usize) -> Result<HostData, CudaError> {
        let b = &lesson.buffers[i];
        let n = b.len as usize;
        let d = &self.dev[i];
        Ok(match b.ty {
            ElemType::F32 => HostData::F32(d.download(n)?),
            ElemType::F64 => HostData::F64(d.download(n)?),
            ElemType::I32 => HostData::I32(d.download(n)?),
            ElemType::U32 => HostData::U32(d.download(n)?),
            ElemType::U64 => HostData::U64(d.download(n)?),
        })
    }

    /// One launch of `v` over these buffers.
    pub fn launch<'a>(&'a self, v: &Variant, kernel: &'a Kernel) -> Launch<'a> {
        let args = v
            .args
            .iter()
            .map(|a| match *a {
                Arg::Buffer(i) => match &self.host[i] {
                    // A pointer is a 64-bit value to the kernel, whichever memory it names.
                    Some(h) => ArgValue::U64(h.device_address()),
                    None => ArgValue::Buffer(&self.dev[i]),
                },
                Arg::I32(x) => ArgValue::I32(x),
                Arg::U32(x) => ArgValue::U32(x),
                Arg::I64(x) => ArgValue::I64(x),
                Arg::U64(x) => ArgValue::U64(x),
                Arg::F32(x) => ArgValue::F32(x),
                Arg::Texture(i) => ArgValue::U64(self.textures[i].handle()),
            })
            .collect();
        Launch {
            kernel,
            grid: v.grid,
            block: v.block,
            smem: v.smem,
            args,
            attrs: self.attrs(v),
        }
    }
}

impl Buffers {
    /// The managed buffers `v`'s arguments name, for moving them before its timed runs.
    pub fn managed_args(&self, v: &Variant) -> Vec<&Managed> {
        (v.args.iter())
            .filter_map(|a| match a {
                Arg::Buffer(i) => match &self.host[*i] {
                    Some(HostMem::Managed(m)) => Some(m),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// `v`'s launch attributes, with the L2 window's buffer as its device address.
    fn attrs(&self, v: &Variant) -> Vec<Attr> {
        let mut out = Vec::new();
        if let Some(c) = v.attrs.cluster {
            out.push(Attr::Cluster(c));
        }
        if let Some(w) = &v.attrs.l2_window {
            let d = &self.dev[w.buffer];
            out.push(Attr::L2Window {
                base: d.device_address(),
                bytes: d.bytes(),
                hit_ratio: w.fraction,
                hit: w.hit,
                miss: w.miss,
            });
        }
        out
    }
}

fn upload(d: &mut DevBuf, h: &HostData) -> Result<(), CudaError> {
    match h {
        HostData::F32(v) => d.upload(v),
        HostData::F64(v) => d.upload(v),
        HostData::I32(v) => d.upload(v),
        HostData::U32(v) => d.upload(v),
        HostData::U64(v) => d.upload(v),
    }
}

/// What a loaded kernel is told before `v` launches it: more than 48 KiB of dynamic shared
/// memory where `v` asks for it, and the variant's carve-out. Both are attributes of the
/// function, set before the occupancy calculator is asked, so that it answers for the
/// launch that will be made.
pub fn prepare(kernel: &Kernel, v: &Variant) -> Result<(), CudaError> {
    if v.smem > 48 * 1024 {
        kernel.allow_dynamic_smem(v.smem)?;
    }
    if let Some(percent) = v.attrs.carveout {
        kernel.prefer_carveout(percent)?;
    }
    Ok(())
}

/// Occupancy from the ptxas report with CUDA's rules (no GPU needed), under the variant's
/// carve-out when it has one.
pub fn occupancy_from_report(cc: &str, v: &Variant, r: &PtxasReport) -> Option<Occupancy> {
    let (maj, min) = cc.split_once('.')?;
    let limits = occupancy::Limits::for_cc(maj.parse().ok()?, min.parse().ok()?)?;
    Some(occupancy::occupancy_with_carveout(
        &limits,
        v.threads_per_block(),
        r.registers,
        r.smem + v.smem,
        v.attrs.carveout,
    ))
}

/// Occupancy from CUDA's calculator; the limiter comes from the same rules applied to the
/// report (the calculator says how many, not why). Without the calculator: the rules alone.
pub fn measure_occupancy(
    gpu: &Gpu,
    v: &Variant,
    kernel: &Kernel,
    ptxas: Option<&PtxasReport>,
) -> Option<Occupancy> {
    let from_report = ptxas.and_then(|p| occupancy_from_report(&gpu.info().cc, v, p));
    let Ok(blocks) = kernel.active_blocks_per_sm(v.threads_per_block(), v.smem) else {
        return from_report;
    };
    let warps_per_block = v.threads_per_block().div_ceil(32);
    let max_warps = gpu.info().max_threads_per_sm / 32;
    let active = (blocks * warps_per_block).min(max_warps);
    Some(Occupancy {
        blocks_per_sm: blocks,
        active_warps: active,
        max_warps,
        ratio: active as f64 / max_warps.max(1) as f64,
        limiter: from_report.map(|o| o.limiter).unwrap_or_default(),
        from: "api".into(),
    })
}
