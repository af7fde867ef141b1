//! The interpreter's memory: the lesson's buffers in host memory (paged, made on first
//! touch, so a lesson-size trace of a few blocks does not fill a GiB), module globals and
//! constants, shared memory per block and local memory per thread, behind the generic
//! address windows `cvta` and `isspacep` see.

use super::limits::Budget;
use super::ops::Space;
use crate::analysis::limits::size;

/// Where static shared memory starts (`SHARED_RESERVED`).
pub const SHARED_BASE: u32 = crate::model::access::SHARED_RESERVED;
pub const SHARED_WIN: u64 = 0x1000_0000_0000;
pub const LOCAL_WIN: u64 = 0x2000_0000_0000;
pub const CONST_WIN: u64 = 0x3000_0000_0000;
pub const MODULE_GLOBALS: u64 = 0x6000_0000_0000;
pub const BUFFERS: u64 = 0x7000_0000_0000;
const WINDOW: u64 = 1 << 32;
/// A buffer's pages are made on first touch. Small ones: a trace that writes a word here and
/// there across a GiB (memory-ladder's chase) made 128 MiB of 64 KiB pages, a third of its
/// time.
const PAGE: u64 = 1 << 12;
/// Each buffer starts a slot of its own this long (a TiB, past the largest buffer the
/// modelled GPU holds), so that an address past the end of one, or before the start of the
/// next, still reads as near the buffer it was computed from; the slots keep the device
/// allocations' alignment (and more).
const BUFFER_SLOT: u64 = 1 << 40;
/// Bytes of host memory a buffer's page index takes per page (an `Option<Box<[u8]>>`).
const INDEX_BYTES: u64 = std::mem::size_of::<Option<Box<[u8]>>>() as u64;

/// A resolved space and the address in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    Global(u64),
    Shared(u64),
    Local(u64),
    Const(u64),
    Param(u64),
    /// A `shared::cluster` address (see `RANK_SHIFT`).
    Cluster(u64),
}

impl At {
    /// The address as a number, whose alignment is the access's: each window, buffer and
    /// frame starts aligned to more than any access's width.
    pub fn offset(self) -> u64 {
        match self {
            At::Global(a)
            | At::Shared(a)
            | At::Local(a)
            | At::Const(a)
            | At::Param(a)
            | At::Cluster(a) => a,
        }
    }
}

/// A `shared::cluster` address is a block's shared offset with the block's rank + 1 from
/// this bit up; with nothing there it is the running block's own (a `shared::cta` address
/// is a valid `shared::cluster` one). Shared memory is far below 16 MiB a block.
pub const RANK_SHIFT: u32 = 24;

/// The block rank and the shared offset a `shared::cluster` address names, for a block of
/// rank `own`.
pub fn cluster_parts(a: u64, own: u32) -> (u32, u64) {
    let off = a & ((1 << RANK_SHIFT) - 1);
    match a >> RANK_SHIFT {
        0 => (own, off),
        r => ((r - 1) as u32, off),
    }
}

/// `mapa`: shared offset `a` of this block as the same offset of block `rank`.
pub fn mapa(a: u64, rank: u64) -> u64 {
    ((rank + 1) << RANK_SHIFT) | (a & ((1 << RANK_SHIFT) - 1))
}

/// A generic address, resolved by the window it falls in; anything else is global.
pub fn resolve(addr: u64) -> At {
    match addr {
        a if (SHARED_WIN..SHARED_WIN + WINDOW).contains(&a) => match a - SHARED_WIN {
            o if o >> RANK_SHIFT != 0 => At::Cluster(o),
            o => At::Shared(o),
        },
        a if (LOCAL_WIN..LOCAL_WIN + WINDOW).contains(&a) => At::Local(a - LOCAL_WIN),
        a if (CONST_WIN..CONST_WIN + WINDOW).contains(&a) => At::Const(a - CONST_WIN),
        a => At::Global(a),
    }
}

/// The generic window of a space (`cvta.space`); global is the identity.
pub fn window(space: Space) -> u64 {
    match space {
        Space::Shared => SHARED_WIN,
        Space::Local => LOCAL_WIN,
        Space::Constant => CONST_WIN,
        _ => 0,
    }
}

/// Fills a page of a buffer on first touch: (byte offset of the page, the page).
pub type Filler = Box<dyn Fn(u64, &mut [u8]) + Send>;

pub struct Region {
    /// The lesson's name for it, for messages.
    pub name: String,
    pub base: u64,
    pub bytes: u64,
    /// By page index; made on first touch.
    pages: Vec<Option<Box<[u8]>>>,
    fill: Filler,
    /// Where its pages and their index are taken from, and given back to when it goes.
    budget: Budget,
    /// Bytes taken from the budget.
    taken: u64,
}

impl Region {
    fn page(&mut self, at: u64) -> Result<&mut [u8], OverBudget> {
        let i = (at / PAGE) as usize;
        if self.pages[i].is_none() {
            let start = at / PAGE * PAGE;
            let n = PAGE.min(self.bytes - start);
            if !self.budget.take(n) {
                let what = format!("a page of `{}`", self.name);
                return Err(OverBudget(self.budget.over(&what, n)));
            }
            self.taken += n;
            let mut p = vec![0u8; n as usize].into_boxed_slice();
            (self.fill)(start, &mut p);
            self.pages[i] = Some(p);
        }
        Ok(self.pages[i].as_deref_mut().expect("made above"))
    }

    /// The buffer's bytes `[from, from + out.len())`.
    pub fn read(&mut self, from: u64, out: &mut [u8]) -> Result<(), OverBudget> {
        let at = (from % PAGE) as usize;
        if at + out.len() <= PAGE as usize {
            let n = out.len();
            out.copy_from_slice(&self.page(from)?[at..at + n]);
            return Ok(());
        }
        for (k, b) in out.iter_mut().enumerate() {
            let at = from + k as u64;
            *b = self.page(at)?[(at % PAGE) as usize];
        }
        Ok(())
    }

    fn write(&mut self, from: u64, data: &[u8]) -> Result<(), OverBudget> {
        let at = (from % PAGE) as usize;
        if at + data.len() <= PAGE as usize {
            self.page(from)?[at..at + data.len()].copy_from_slice(data);
            return Ok(());
        }
        for (k, &b) in data.iter().enumerate() {
            let at = from + k as u64;
            self.page(at)?[(at % PAGE) as usize] = b;
        }
        Ok(())
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        self.budget.give(self.taken);
    }
}

/// Host memory the run's budget could not give, in words with the figures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct OverBudget(pub String);

/// An access outside every buffer or window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfBounds {
    pub space: &'static str,
    pub addr: u64,
    pub bytes: usize,
    /// Where it fell, naming what is there: "byte 4100 of `in`, which has 4096 bytes".
    pub what: String,
}

/// Why an access could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemError {
    Out(OutOfBounds),
    /// Its page could not be made within the run's memory budget.
    Budget(OverBudget),
}

impl From<OutOfBounds> for MemError {
    fn from(e: OutOfBounds) -> MemError {
        MemError::Out(e)
    }
}

impl From<OverBudget> for MemError {
    fn from(e: OverBudget) -> MemError {
        MemError::Budget(e)
    }
}

#[derive(Default)]
pub struct Memory {
    pub buffers: Vec<Region>,
    pub module: Vec<u8>,
    pub consts: Vec<u8>,
    pub shared: Vec<u8>,
    pub local: Vec<u8>,
    pub local_bytes: usize,
    /// The cluster's blocks' shared and local memory by rank, the running block's (`rank`)
    /// swapped out into `shared` and `local`.
    pub cluster: Vec<Vec<u8>>,
    pub cluster_local: Vec<Vec<u8>>,
    pub rank: usize,
    /// What the buffers' pages are taken from.
    pub budget: Budget,
}

/// `n` bytes at `at` of `v`; `what` says, for a message, what memory of its length it is
/// ("the block's shared memory has 0 bytes").
fn slice<'a>(
    v: &'a mut [u8],
    at: u64,
    n: usize,
    (space, what): (&'static str, &dyn Fn(usize) -> String),
) -> Result<&'a mut [u8], OutOfBounds> {
    let end = at.checked_add(n as u64).filter(|&e| e <= v.len() as u64);
    match end {
        Some(e) => Ok(&mut v[at as usize..e as usize]),
        None => Err(OutOfBounds {
            space,
            addr: at,
            bytes: n,
            what: what(v.len()),
        }),
    }
}

/// `n` bytes at offset `at` of a block's shared window: none below `SHARED_BASE`, the KiB
/// the GPU keeps for itself, which no variable of the kernel's lies in (an absolute
/// address there reads or writes what the hardware keeps, not a word of the kernel's, and
/// takes no shared memory the kernel declares).
fn shared_slice<'a>(
    v: &'a mut [u8],
    at: u64,
    n: usize,
    (space, what): (&'static str, &dyn Fn(usize) -> String),
) -> Result<&'a mut [u8], OutOfBounds> {
    if at < u64::from(SHARED_BASE) {
        return Err(OutOfBounds {
            space,
            addr: at,
            bytes: n,
            what: format!(
                "offset {at} is in the first {SHARED_BASE} bytes of the shared window, which \
                 the GPU keeps for itself; {}",
                what(v.len())
            ),
        });
    }
    slice(v, at, n, (space, what))
}

/// A block's shared memory of `len` bytes of window, in words: what the kernel has of it
/// starts at `SHARED_BASE` (the GPU keeps the first KiB).
fn shared_words(whose: &str, len: usize) -> String {
    let own = len.saturating_sub(SHARED_BASE as usize);
    format!("{whose} shared memory has {own} bytes (static and dynamic), from offset {SHARED_BASE}")
}

impl Memory {
    /// Place buffer `name` of `bytes` in the slot after the others; its device-style
    /// address. Its page index is taken from the budget first, and pages as they are made;
    /// refused (nothing allocated) beyond the modelled GPU's memory or the budget.
    pub fn add_buffer(&mut self, name: &str, bytes: u64, fill: Filler) -> Result<u64, OverBudget> {
        let taken: u64 = self.buffers.iter().map(|r| r.bytes).sum();
        let all = taken.saturating_add(bytes);
        if bytes > super::limits::GPU_MEMORY || all > super::limits::GPU_MEMORY {
            return Err(OverBudget(format!(
                "buffer `{name}` needs {}, {} with the others, and the GPU the interpreter \
                 models has {}",
                size(bytes),
                size(all),
                size(super::limits::GPU_MEMORY)
            )));
        }
        let index = bytes.div_ceil(PAGE) * INDEX_BYTES;
        if !self.budget.take(index) {
            let what = format!("the page index of buffer `{name}` ({})", size(bytes));
            return Err(OverBudget(self.budget.over(&what, index)));
        }
        let base = BUFFERS + self.buffers.len() as u64 * BUFFER_SLOT;
        self.buffers.push(Region {
            name: name.to_string(),
            base,
            bytes,
            pages: (0..bytes.div_ceil(PAGE)).map(|_| None).collect(),
            fill,
            budget: self.budget.clone(),
            taken: index,
        });
        Ok(base)
    }

    fn region(&mut self, addr: u64, n: usize) -> Result<(&mut Region, u64), OutOfBounds> {
        let i = self.buffers.partition_point(|r| r.base <= addr);
        let oob = |what: String| OutOfBounds {
            space: "global",
            addr,
            bytes: n,
            what,
        };
        let name = |r: &Region| match r.name.is_empty() {
            true => "a buffer".to_string(),
            false => format!("`{}`", r.name),
        };
        let Some(k) = i.checked_sub(1) else {
            // Below the first slot: a negative index of the first buffer, or no buffer's.
            return Err(oob(match self.buffers.first() {
                Some(r) if r.base - addr < BUFFER_SLOT / 2 => {
                    format!("{} bytes before the start of {}", r.base - addr, name(r))
                }
                _ => "no buffer is there".into(),
            }));
        };
        // An end past 2^64 (an address just below it, a negative index) is outside too.
        let r = &self.buffers[k];
        if addr
            .checked_add(n as u64)
            .is_none_or(|end| end > r.base + r.bytes)
        {
            let past = addr - r.base;
            // In the upper half of a slot, the address is nearer the next buffer's start:
            // a negative index of that one.
            let what = match self.buffers.get(k + 1) {
                Some(next) if past >= BUFFER_SLOT / 2 => {
                    format!(
                        "{} bytes before the start of {}",
                        next.base - addr,
                        name(next)
                    )
                }
                _ => format!("byte {past} of {}, which has {} bytes", name(r), r.bytes),
            };
            return Err(oob(what));
        }
        let r = &mut self.buffers[k];
        let off = addr - r.base;
        Ok((r, off))
    }

    /// `n` (≤ 8) bytes at `at`, little-endian; `thread` picks the local frame.
    pub fn load(&mut self, at: At, n: usize, thread: usize) -> Result<u64, MemError> {
        let mut b = [0u8; 8];
        match self.locate(at, n, thread)? {
            Loc::Flat(m) => b[..n].copy_from_slice(m),
            Loc::Paged(r, off) => r.read(off, &mut b[..n])?,
        }
        Ok(u64::from_le_bytes(b))
    }

    pub fn store(&mut self, at: At, n: usize, thread: usize, v: u64) -> Result<(), MemError> {
        let b = v.to_le_bytes();
        match self.locate(at, n, thread)? {
            Loc::Flat(m) => m.copy_from_slice(&b[..n]),
            Loc::Paged(r, off) => r.write(off, &b[..n])?,
        }
        Ok(())
    }

    /// Whether `n` bytes at `at` lie inside memory, touching no page.
    pub fn check(&mut self, at: At, n: usize, thread: usize) -> Result<(), OutOfBounds> {
        match at {
            At::Global(a) if !self.is_module(a) => self.region(a, n).map(drop),
            at => self.locate(at, n, thread).map(drop),
        }
    }

    /// Whether global address `a` is the module variables' (the window below the buffers'
    /// slots), not the first buffer's negative index (just below its start), nor a buffer's.
    fn is_module(&self, a: u64) -> bool {
        (MODULE_GLOBALS..BUFFERS).contains(&a)
            && (a - MODULE_GLOBALS < self.module.len() as u64 || a < BUFFERS - BUFFER_SLOT / 2)
    }

    fn locate(&mut self, at: At, n: usize, thread: usize) -> Result<Loc<'_>, OutOfBounds> {
        let own = self.rank;
        Ok(match at {
            At::Shared(a) => {
                let what = |len| shared_words("the block's", len);
                Loc::Flat(shared_slice(&mut self.shared, a, n, ("shared", &what))?)
            }
            At::Const(a) => {
                let what = |len| format!("the module's constant memory has {len} bytes");
                Loc::Flat(slice(&mut self.consts, a, n, ("constant", &what))?)
            }
            At::Local(a) => {
                let lb = self.local_bytes;
                let frame = self
                    .local
                    .get_mut(thread * lb..(thread + 1) * lb)
                    .unwrap_or(&mut []);
                let what = |len| format!("thread {thread}'s local memory has {len} bytes");
                Loc::Flat(slice(frame, a, n, ("local", &what))?)
            }
            At::Global(a) if self.is_module(a) => {
                let what = |len| format!("the module's global variables have {len} bytes");
                let at = a - MODULE_GLOBALS;
                Loc::Flat(slice(&mut self.module, at, n, ("global", &what))?)
            }
            At::Global(a) => {
                let (r, off) = self.region(a, n)?;
                Loc::Paged(r, off)
            }
            At::Cluster(a) => {
                let (rank, off) = cluster_parts(a, self.rank as u32);
                let mem = match rank as usize {
                    r if r == self.rank => &mut self.shared,
                    r => self.cluster.get_mut(r).ok_or_else(|| OutOfBounds {
                        space: "shared::cluster",
                        addr: a,
                        bytes: n,
                        what: format!("the cluster has no block of rank {r}"),
                    })?,
                };
                let what = |len| match rank as usize == own {
                    true => shared_words("the block's", len),
                    false => shared_words(&format!("the cluster's block {rank}'s"), len),
                };
                Loc::Flat(shared_slice(mem, off, n, ("shared::cluster", &what))?)
            }
            At::Param(_) => unreachable!("parameters live in the frames"),
        })
    }
}

enum Loc<'a> {
    Flat(&'a mut [u8]),
    Paged(&'a mut Region, u64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_is_made_page_by_page_and_an_access_across_pages_sees_both() {
        let mut m = Memory::default();
        let base = m
            .add_buffer(
                "b",
                3 * PAGE + 10,
                Box::new(|start, page| {
                    for (i, b) in page.iter_mut().enumerate() {
                        *b = ((start + i as u64) % 251) as u8;
                    }
                }),
            )
            .unwrap();
        // Eight bytes from four before the first page's end: two pages' bytes.
        let at = At::Global(base + PAGE - 4);
        let want = u64::from_le_bytes(std::array::from_fn(|i| ((PAGE - 4 + i as u64) % 251) as u8));
        assert_eq!(m.load(at, 8, 0).unwrap(), want);
        m.store(at, 8, 0, 0x0102_0304_0506_0708).unwrap();
        assert_eq!(m.load(at, 8, 0).unwrap(), 0x0102_0304_0506_0708);
        // Only the pages touched were made.
        assert_eq!(m.buffers[0].pages.iter().filter(|p| p.is_some()).count(), 2);
        // The last, short page ends where the buffer does.
        assert!(m.load(At::Global(base + 3 * PAGE + 8), 2, 0).is_ok());
        let e = m.load(At::Global(base + 3 * PAGE + 8), 4, 0).unwrap_err();
        assert!(
            matches!(&e, MemError::Out(o) if o.what.contains("which has")),
            "{e:?}"
        );
        // A negative index's address, just below 2^64: outside, not wrapped round to inside.
        assert!(m.load(At::Global(u64::MAX - 3), 8, 0).is_err());
        assert!(m.check(At::Global(base), usize::MAX, 0).is_err());
    }

    fn filled() -> Filler {
        Box::new(|_, page| page.fill(1))
    }

    #[test]
    fn an_access_outside_names_the_buffer_it_was_near_and_its_size() {
        let mut m = Memory::default();
        let a = m.add_buffer("in", 4096, filled()).unwrap();
        let b = m.add_buffer("out", 4096, filled()).unwrap();
        let what = |m: &mut Memory, at: u64| match m.load(At::Global(at), 4, 0) {
            Err(MemError::Out(o)) => o.what,
            other => panic!("{other:?}"),
        };
        // Far past `in` (a GiB): still `in`, never `out`.
        let w = what(&mut m, a + (1 << 30));
        assert_eq!(w, "byte 1073741824 of `in`, which has 4096 bytes");
        assert_eq!(
            what(&mut m, a + 4096),
            "byte 4096 of `in`, which has 4096 bytes"
        );
        // A negative index of `out`, and of `in`.
        assert_eq!(what(&mut m, b - 8), "8 bytes before the start of `out`");
        assert_eq!(what(&mut m, a - 4), "4 bytes before the start of `in`");
        assert_eq!(what(&mut m, 0), "no buffer is there");
        // Shared, local and constant memory are named, not "it".
        m.shared = vec![0; 1024 + 16];
        let e = m.load(At::Shared(1024 + 16), 4, 0).unwrap_err();
        let want = "the block's shared memory has 16 bytes (static and dynamic), from offset 1024";
        assert!(matches!(&e, MemError::Out(o) if o.what == want), "{e:?}");
        // The first KiB of the window is the GPU's, not the kernel's: no word of it is read.
        let e = m.store(At::Shared(1020), 4, 0, 7).unwrap_err();
        assert!(
            matches!(&e, MemError::Out(o) if o.what.contains("the GPU keeps for itself")),
            "{e:?}"
        );
        assert!(m.load(At::Shared(1024), 4, 0).is_ok());
        let e = m.load(At::Local(0), 4, 3).unwrap_err();
        assert!(
            matches!(&e, MemError::Out(o) if o.what == "thread 3's local memory has 0 bytes"),
            "{e:?}"
        );
    }

    #[test]
    fn buffers_beyond_the_gpu_or_the_budget_are_refused_before_allocating() {
        let mut m = Memory {
            budget: Budget::new(1 << 20),
            ..Memory::default()
        };
        let e = m.add_buffer("huge", 4 << 50, filled()).unwrap_err();
        assert!(
            e.0.contains("`huge` needs 4096 TiB") || e.0.contains("`huge` needs"),
            "{e}"
        );
        assert!(e.0.contains("80 GiB"), "{e}");
        // 64 GiB fits the GPU, but not its page index (256 MiB) a 1 MiB budget.
        let e = m.add_buffer("big", 64 << 30, filled()).unwrap_err();
        assert!(
            e.0.contains("page index of buffer `big`") && e.0.contains("1 MiB"),
            "{e}"
        );
        // Pages beyond the budget: an error naming the buffer, not an abort.
        let a = m.add_buffer("small", 4 << 20, filled()).unwrap();
        let mut last = Ok(0);
        for k in 0..1024u64 {
            last = m.load(At::Global(a + k * PAGE), 4, 0);
            if last.is_err() {
                break;
            }
        }
        assert!(
            matches!(&last, Err(MemError::Budget(b)) if b.0.contains("a page of `small`")),
            "{last:?}"
        );
        // Dropped, the buffers give their memory back.
        drop(m.buffers.drain(..));
        assert_eq!(m.budget.left(), 1 << 20);
    }
}
