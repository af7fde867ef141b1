//! The interpreter's memory: the lesson's buffers in host memory (paged, made on first
//! touch, so a lesson-size trace of a few blocks does not fill a GiB), module globals and
//! constants, shared memory per block and local memory per thread, behind the generic
//! address windows `cvta` and `isspacep` see.

use super::ops::Space;

/// Where static shared memory starts: the H100 keeps the first KiB of a block's shared
/// window for itself, and the recorded shared addresses start past it.
pub const SHARED_BASE: u32 = 1024;
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
/// Buffers start at this alignment, as device allocations do (and more).
const BUFFER_ALIGN: u64 = 1 << 21;

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
}

impl Region {
    fn page(&mut self, at: u64) -> &mut [u8] {
        let fill = &self.fill;
        let bytes = self.bytes;
        self.pages[(at / PAGE) as usize].get_or_insert_with(|| {
            let start = at / PAGE * PAGE;
            let mut p = vec![0u8; PAGE.min(bytes - start) as usize].into_boxed_slice();
            fill(start, &mut p);
            p
        })
    }

    /// The buffer's bytes `[from, from + out.len())`.
    pub fn read(&mut self, from: u64, out: &mut [u8]) {
        let at = (from % PAGE) as usize;
        if at + out.len() <= PAGE as usize {
            let n = out.len();
            out.copy_from_slice(&self.page(from)[at..at + n]);
            return;
        }
        for (k, b) in out.iter_mut().enumerate() {
            let at = from + k as u64;
            *b = self.page(at)[(at % PAGE) as usize];
        }
    }

    fn write(&mut self, from: u64, data: &[u8]) {
        let at = (from % PAGE) as usize;
        if at + data.len() <= PAGE as usize {
            self.page(from)[at..at + data.len()].copy_from_slice(data);
            return;
        }
        for (k, &b) in data.iter().enumerate() {
            let at = from + k as u64;
            self.page(at)[(at % PAGE) as usize] = b;
        }
    }
}

/// An access outside every buffer or window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfBounds {
    pub space: &'static str,
    pub addr: u64,
    pub bytes: usize,
    pub what: String,
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
}

fn slice<'a>(
    v: &'a mut [u8],
    at: u64,
    n: usize,
    space: &'static str,
) -> Result<&'a mut [u8], OutOfBounds> {
    let end = at.checked_add(n as u64).filter(|&e| e <= v.len() as u64);
    match end {
        Some(e) => Ok(&mut v[at as usize..e as usize]),
        None => Err(OutOfBounds {
            space,
            addr: at,
            bytes: n,
            what: format!("it has {} bytes", v.len()),
        }),
    }
}

impl Memory {
    /// Place a buffer of `bytes` after the others; its device-style address.
    pub fn add_buffer(&mut self, bytes: u64, fill: Filler) -> u64 {
        let base = self.buffers.last().map_or(BUFFERS, |r| {
            (r.base + r.bytes.max(1)).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN
        });
        self.buffers.push(Region {
            name: String::new(),
            base,
            bytes,
            pages: (0..bytes.div_ceil(PAGE)).map(|_| None).collect(),
            fill,
        });
        base
    }

    fn region(&mut self, addr: u64, n: usize) -> Result<(&mut Region, u64), OutOfBounds> {
        let i = self.buffers.partition_point(|r| r.base <= addr);
        let oob = |what: String| OutOfBounds {
            space: "global",
            addr,
            bytes: n,
            what,
        };
        let Some(r) = i.checked_sub(1).map(|i| &mut self.buffers[i]) else {
            return Err(oob("no buffer is there".into()));
        };
        // An end past 2^64 (an address just below it, a negative index) is outside too.
        if addr
            .checked_add(n as u64)
            .is_none_or(|end| end > r.base + r.bytes)
        {
            let past = addr - r.base;
            let name = if r.name.is_empty() {
                "a buffer".to_string()
            } else {
                format!("`{}`", r.name)
            };
            return Err(oob(format!(
                "byte {past} of {name}, which has {} bytes",
                r.bytes
            )));
        }
        let off = addr - r.base;
        Ok((r, off))
    }

    /// `n` (≤ 8) bytes at `at`, little-endian; `thread` picks the local frame.
    pub fn load(&mut self, at: At, n: usize, thread: usize) -> Result<u64, OutOfBounds> {
        let mut b = [0u8; 8];
        match self.locate(at, n, thread)? {
            Loc::Flat(m) => b[..n].copy_from_slice(m),
            Loc::Paged(r, off) => r.read(off, &mut b[..n]),
        }
        Ok(u64::from_le_bytes(b))
    }

    pub fn store(&mut self, at: At, n: usize, thread: usize, v: u64) -> Result<(), OutOfBounds> {
        let b = v.to_le_bytes();
        match self.locate(at, n, thread)? {
            Loc::Flat(m) => m.copy_from_slice(&b[..n]),
            Loc::Paged(r, off) => r.write(off, &b[..n]),
        }
        Ok(())
    }

    /// Whether `n` bytes at `at` lie inside memory, touching no page.
    pub fn check(&mut self, at: At, n: usize, thread: usize) -> Result<(), OutOfBounds> {
        match at {
            At::Global(a) if a >= BUFFERS => self.region(a, n).map(drop),
            at => self.locate(at, n, thread).map(drop),
        }
    }

    fn locate(&mut self, at: At, n: usize, thread: usize) -> Result<Loc<'_>, OutOfBounds> {
        Ok(match at {
            At::Shared(a) => Loc::Flat(slice(&mut self.shared, a, n, "shared")?),
            At::Const(a) => Loc::Flat(slice(&mut self.consts, a, n, "constant")?),
            At::Local(a) => {
                let lb = self.local_bytes;
                let frame = self
                    .local
                    .get_mut(thread * lb..(thread + 1) * lb)
                    .unwrap_or(&mut []);
                Loc::Flat(slice(frame, a, n, "local")?)
            }
            At::Global(a) if (MODULE_GLOBALS..BUFFERS).contains(&a) => {
                Loc::Flat(slice(&mut self.module, a - MODULE_GLOBALS, n, "global")?)
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
                Loc::Flat(slice(mem, off, n, "shared::cluster")?)
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
        let base = m.add_buffer(
            3 * PAGE + 10,
            Box::new(|start, page| {
                for (i, b) in page.iter_mut().enumerate() {
                    *b = ((start + i as u64) % 251) as u8;
                }
            }),
        );
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
        assert!(e.what.contains("which has"), "{e:?}");
        // A negative index's address, just below 2^64: outside, not wrapped round to inside.
        assert!(m.load(At::Global(u64::MAX - 3), 8, 0).is_err());
        assert!(m.check(At::Global(base), usize::MAX, 0).is_err());
    }
}
