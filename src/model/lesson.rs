//! A lesson as the course loader resolves it from its YAML file (docs/lesson-format.md).
//! Everything downstream (worker, UI, recording) sees only these types.

use super::attrs::LaunchAttrs;
use super::claim;
use super::host::{Memory, Transfer};
use super::measure::{Measure, Tolerance};
use super::requires::Requires;
use serde::{Deserialize, Serialize};

/// What a lesson is about, which the course list groups lessons under: mostly a memory
/// space (global, shared, ...), also a level of the hierarchy (L2), a way between memories
/// (distributed shared, a peer GPU) or the capstone. Written `space:` in a lesson file, and
/// so in results and `list --json`; not a PTX state space (that is `access::Space`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Topic {
    Global,
    Shared,
    Register,
    Local,
    Constant,
    Texture,
    L2,
    Dsmem,
    Peer,
    /// The host: copies over PCIe, pinned, mapped and managed memory.
    Host,
    Capstone,
}

impl Topic {
    pub const ALL: [Topic; 11] = [
        Topic::Global,
        Topic::Shared,
        Topic::Register,
        Topic::Local,
        Topic::Constant,
        Topic::Texture,
        Topic::L2,
        Topic::Dsmem,
        Topic::Peer,
        Topic::Host,
        Topic::Capstone,
    ];

    /// Each topic's name in lesson files (the same as its serde name) and its label on
    /// screen: the one place either is spelt.
    const NAMES: [(Topic, &'static str, &'static str); 11] = [
        (Topic::Global, "global", "GLOBAL"),
        (Topic::Shared, "shared", "SHARED"),
        (Topic::Register, "register", "REGISTERS"),
        (Topic::Local, "local", "LOCAL"),
        (Topic::Constant, "constant", "CONSTANT"),
        (Topic::Texture, "texture", "TEXTURE"),
        (Topic::L2, "l2", "L2"),
        (Topic::Dsmem, "dsmem", "DISTRIBUTED SHARED"),
        (Topic::Peer, "peer", "PEER GPU"),
        (Topic::Host, "host", "HOST"),
        (Topic::Capstone, "capstone", "CAPSTONE"),
    ];

    /// The name a lesson file gives the topic (`space: shared`).
    pub fn id(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(m, _, _)| *m == self)
            .map_or("?", |(_, id, _)| id)
    }

    /// The topic a lesson file names (`shared` for `space: shared`).
    pub fn from_id(name: &str) -> Option<Topic> {
        Self::NAMES
            .iter()
            .find(|(_, id, _)| *id == name)
            .map(|(t, _, _)| *t)
    }

    /// The topic's name as a heading on screen.
    pub fn label(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(m, _, _)| *m == self)
            .map_or("?", |(_, _, label)| label)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page {
    pub title: String,
    pub text: String,
    /// The page answers the lesson's predictions (`answers: true`): the lab keeps it
    /// closed until the lesson has been run or its figures shown, so that a prediction
    /// stays one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub answers: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    F32,
    F64,
    I32,
    U32,
    /// For figures a kernel measures (clock64 deltas); not a choice for compared outputs.
    U64,
}

impl ElemType {
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::F32 | ElemType::F64)
    }

    /// The range `init: random` draws from where none is written: floats in [-1, 1),
    /// integers over every value the type holds, so no bit of an input is known before it
    /// is read (a kernel that packs two 16-bit words into a register is wrong, and shows it).
    pub fn random_range(self) -> (f64, f64) {
        match self {
            ElemType::F32 | ElemType::F64 => (-1.0, 1.0),
            ElemType::I32 => (-2_147_483_648.0, 2_147_483_648.0),
            ElemType::U32 => (0.0, 4_294_967_296.0),
            ElemType::U64 => (0.0, 18_446_744_073_709_551_616.0),
        }
    }

    pub fn size(self) -> usize {
        match self {
            ElemType::F64 | ElemType::U64 => 8,
            _ => 4,
        }
    }

    /// The poison an output holds before a launch, as a 32-bit pattern (repeated in 8-byte
    /// elements): all-ones is a NaN in f32 and f64, so an unwritten float can never pass
    /// the NaN-aware check; integers get a pattern easy to spot in a dump. The GPU's host
    /// data and the CPU interpreter poison alike.
    pub fn poison_bits(self) -> u32 {
        match self {
            ElemType::F32 | ElemType::F64 => 0xFFFF_FFFF,
            ElemType::I32 | ElemType::U32 | ElemType::U64 => 0xDEAD_BEEF,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Init {
    /// Uniform in [lo, hi).
    Random {
        lo: f64,
        hi: f64,
    },
    Seq,
    /// Values rising evenly from lo to hi over the buffer (a gradient): element i of n is
    /// lo + (hi - lo) * i / n, rounded down for integers. `shuffled`: the same values, each
    /// once, in an order drawn afresh for every run (a bijection of the indices, `ramp_at`).
    Ramp {
        lo: f64,
        hi: f64,
        shuffled: bool,
    },
    Zeros,
    /// An output: poisoned before each launch, compared after it.
    Poison,
    Const(f64),
}

/// Element `i` of a ramp of `n` (`Init::Ramp`), drawn with `seed` where shuffled: the plain
/// ramp's element at index `shuffle(i)`, a pseudo-random permutation of 0..n, so a shuffled
/// ramp holds the same values as the plain one and every element can be made on its own (the
/// interpreter makes only the pages a trace touches). Integers exactly: `lo + (hi - lo) * j /
/// n` rounded down.
pub fn ramp_at(lo: f64, hi: f64, shuffled: bool, n: u64, seed: u64, i: u64, int: bool) -> f64 {
    let n = n.max(1);
    let j = if shuffled {
        shuffle(i % n, n, seed)
    } else {
        i % n
    };
    if int && lo.fract() == 0.0 && hi.fract() == 0.0 && (hi - lo).abs() < 9.0e15 {
        let span = (hi - lo) as i128;
        return lo + (span * i128::from(j) / i128::from(n)) as f64;
    }
    lo + (hi - lo) * j as f64 / n as f64
}

/// An integer of `init: random` over [lo, hi) from 64 random bits, exactly: every value of
/// the range can come, the lowest bits of a 64-bit one too (an f64 in between would keep
/// only 53 of them). The bits are scaled, not taken modulo, so no value is favoured by more
/// than one part in 2^64 / span.
pub fn random_int(lo: f64, hi: f64, bits: u64) -> i128 {
    let (lo, hi) = (lo.ceil() as i128, hi.ceil() as i128);
    let span = (hi - lo).max(1) as u128;
    lo + ((u128::from(bits) * span) >> 64) as i128
}

/// splitmix64's step: the value after `z` of the generator whose state is `z` (fast, and
/// good enough for inputs no kernel can guess). The GPU's host data, the interpreter's and
/// the shuffled ramp all draw from it.
pub fn splitmix(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A permutation of 0..n drawn by `seed`: a four-round Feistel network over the smallest
/// even number of bits that holds n, walked again from any value past n until it lands
/// inside (each walk stays a bijection; it takes under four rounds on average). An affine
/// map would be cheaper, but its lanes' values form a progression whose bank pattern the
/// seed would decide.
fn shuffle(i: u64, n: u64, seed: u64) -> u64 {
    let bits = (64 - (n - 1).leading_zeros()).div_ceil(2).max(1);
    let mask = (1u64 << bits) - 1;
    let mut x = i;
    loop {
        let (mut l, mut r) = (x >> bits, x & mask);
        for round in 0..4u64 {
            let f = splitmix(seed ^ round.wrapping_mul(0xA24B_AED4_963E_E407) ^ r) & mask;
            (l, r) = (r, l ^ f);
        }
        x = (l << bits) | r;
        if x < n {
            return x;
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub ty: ElemType,
    pub len: u64,
    pub init: Init,
    /// 0: on the GPU that runs the kernels; 1: on a second GPU, its peer, reached over the
    /// interconnect (the lesson then requires two GPUs).
    #[serde(default)]
    pub gpu: u32,
    /// Where its memory is: the GPU's (default), mapped pinned host memory, or managed.
    #[serde(default, skip_serializing_if = "Memory::is_device")]
    pub memory: Memory,
}

impl Buffer {
    pub fn is_output(&self) -> bool {
        self.init == Init::Poison
    }
    pub fn bytes(&self) -> u64 {
        self.len * self.ty.size() as u64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Arg {
    /// Index into `Lesson::buffers`.
    Buffer(usize),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    /// Index into `Lesson::textures`: its texture object, passed as a 64-bit handle.
    Texture(usize),
}

/// `constants: [{ symbol, from }]` on a variant: before its launches, the worker copies
/// buffer `buffer`'s host data into the module's `__constant__` variable `symbol`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstantFill {
    pub symbol: String,
    /// Index into `Lesson::buffers` (an input, never an output).
    pub buffer: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    /// As written in the lesson, relative to the course root.
    pub source_path: String,
    /// The kernel file's text, read at load time.
    pub source: String,
    pub kernel: String,
    /// In the order written (parent's first for `like:`), values as text.
    pub defines: Vec<(String, String)>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub smem: u32,
    pub args: Vec<Arg>,
    pub options: Vec<String>,
    pub note: Option<String>,
    /// `__constant__` symbols filled from buffers before the variant runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constants: Vec<ConstantFill>,
    /// Launch attributes (clusters, an L2 window); empty: an ordinary launch.
    #[serde(default, skip_serializing_if = "LaunchAttrs::is_empty")]
    pub attrs: LaunchAttrs,
    /// `cold_l2: true`: the L2 is flushed before every timed launch, so the times are of a
    /// cold cache (a kernel whose data would otherwise stay in the L2 between launches).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cold_l2: bool,
    /// A copy between host and device instead of a kernel: no source, kernel or launch
    /// (they are empty), timed as a kernel is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<Transfer>,
    /// `prefetch: true`: the managed buffers it reads are moved to the GPU in bulk
    /// (`cuMemPrefetchAsync`) inside the timed region, before the kernel; false: the
    /// kernel's first touch migrates them page by page. Either way they start each timed
    /// run on the host (`worker::timing`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefetch: bool,
    /// Each of the lesson's `measures`' divisor (`per`) for this variant, evaluated with
    /// its defines, in `Lesson::measures` order (1 where none is given). Kept on the
    /// variant so that a lesson cut down or added to (an exercise's `yours` and solution,
    /// a check at another size) divides every variant's figure by its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per: Vec<f64>,
}

impl Variant {
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reference {
    /// Index into `Lesson::variants`.
    Variant(usize),
    Copy {
        from: usize,
        to: usize,
    },
    Transpose {
        from: usize,
        to: usize,
        rows: u64,
        cols: u64,
    },
    /// to = a x b, row-major (a: rows x depth, b: depth x cols), computed by cuBLAS on the
    /// GPU in FP32 without tensor cores, and timed: the lesson's `peak: cublas`.
    Sgemm {
        a: usize,
        b: usize,
        to: usize,
        rows: u64,
        cols: u64,
        depth: u64,
    },
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Metrics {
    pub bytes: Option<f64>,
    pub flops: Option<f64>,
    /// The bytes are not device-memory traffic (shared memory, say): no percentage of the
    /// copy bandwidth, which would compare unlike things.
    #[serde(default)]
    pub no_peak: bool,
    /// `peak: cublas`: the percentage is of cuBLAS SGEMM's GFLOP/s on the same problem,
    /// measured in the same run (the lesson's reference must be `builtin: sgemm`).
    #[serde(default)]
    pub cublas_peak: bool,
    /// `peak: link`: the percentage is of the PCIe link's theoretical bandwidth in one
    /// direction (`PcieLink::theoretical_gbps`), for bytes that cross it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub link_peak: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub q: String,
    pub choices: Vec<String>,
    pub answer: usize,
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lesson {
    pub id: String,
    pub title: String,
    /// Written `space:` in the lesson file and in serialized lessons.
    #[serde(rename = "space")]
    pub topic: Topic,
    /// Place in the course, from the file name's `NN-` prefix.
    pub order: u32,
    /// The file it was loaded from, as shown in messages.
    pub file: String,
    pub pages: Vec<Page>,
    /// Evaluated problem sizes, in the order written.
    pub problem: Vec<(String, i64)>,
    /// Smaller sizes for a run on the CPU interpreter (`problem_cpu:`), where the output
    /// is checked; empty: the CPU run checks nothing and only traces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problem_cpu: Vec<(String, i64)>,
    pub buffers: Vec<Buffer>,
    pub variants: Vec<Variant>,
    pub reference: Reference,
    pub metrics: Metrics,
    pub expect: Vec<claim::Claim>,
    pub checkpoint: Vec<Question>,
    /// Blocks the tracer samples by default.
    pub trace_blocks: u32,
    /// Given in the lesson; None: the default, `Tolerance::default()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Tolerance>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measures: Vec<Measure>,
    #[serde(default)]
    pub requires: Requires,
    /// Variants generated over the values of one define, in the order written; the UI
    /// draws each as a chart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
    /// `l2_persisting_bytes`: the persisting-L2 set-aside while the lesson runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_persisting_bytes: Option<u64>,
    /// Texture objects the worker creates from input buffers (`Arg::Texture`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub textures: Vec<super::texture::Texture>,
    /// Self-paced exercises: the learner's kernel as one more variant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exercises: Vec<super::exercise::Exercise>,
    /// Defines (or the register cap) of a variant the learner turns in the lab.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub knobs: Vec<super::knob::Knob>,
}

/// A `sweep:` as the loader expanded it: which variants it made, and the value of the
/// define in each.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The name written on the sweeping variant.
    pub name: String,
    pub define: String,
    /// The x axis's title.
    pub x_label: String,
    pub points: Vec<SweepPoint>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub variant: String,
    pub value: i64,
}

impl Sweep {
    /// One point in words, in the unit the x axis gives in brackets: "working set 4 MiB"
    /// from "working set (MiB)", "chain's set 64 KiB" from "chain's set (KiB), carve-out
    /// max_l1" (what follows the unit is the sweep's, said once in its note); an axis with
    /// no unit, "STRIDE = 4".
    pub fn point_words(&self, value: i64) -> String {
        let unit = (self.x_label.split_once('('))
            .and_then(|(before, rest)| Some((before.trim_end(), rest.split_once(')')?.0)));
        match unit {
            Some(("", unit)) => format!("{value} {unit}"),
            Some((what, unit)) => format!("{what} {value} {unit}"),
            None => format!("{} = {value}", self.x_label),
        }
    }
}

impl Lesson {
    /// The architecture this lesson's kernels are compiled for on `device` (none: the lab's
    /// default), never below what the lesson requires: `target::target` with only the
    /// shown GPU known, where the choice is made for runs, compiles, SASS and the
    /// interpreter alike.
    pub fn arch_on(&self, device: Option<&super::results::DeviceInfo>) -> String {
        let gpus = super::target::Gpus {
            shown: device,
            ..Default::default()
        };
        super::target::target(Some(self), &gpus).arch
    }

    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }

    /// The sweep that made variant `name`, and its point there.
    pub fn sweep_point(&self, name: &str) -> Option<(&Sweep, &SweepPoint)> {
        (self.sweeps.iter()).find_map(|s| Some((s, s.points.iter().find(|p| p.variant == name)?)))
    }

    /// Whether any variant is a copy or any buffer lives off the device: what the CPU
    /// interpreter cannot show (it has no link and no pages to move).
    pub fn uses_host_memory(&self) -> bool {
        self.variants.iter().any(|v| v.transfer.is_some())
            || self.buffers.iter().any(|b| !b.memory.is_device())
    }

    /// Whether buffer `i` holds figures the kernel measured (not compared with the reference).
    pub fn is_measured(&self, i: usize) -> bool {
        self.measures.iter().any(|m| m.buffer == i)
    }
}

#[cfg(test)]
mod tests {
    use super::{Topic, ramp_at};

    #[test]
    fn a_shuffled_ramp_holds_the_ramps_values_in_an_order_the_seed_draws() {
        for n in [1u64, 7, 1000, 1024, 4099] {
            let ramp: Vec<u64> = (0..n)
                .map(|i| ramp_at(0.0, 256.0, false, n, 5, i, true) as u64)
                .collect();
            // Rising evenly, exactly: element i is 256 i / n rounded down.
            assert!(
                ramp.iter()
                    .enumerate()
                    .all(|(i, &v)| v == 256 * i as u64 / n)
            );
            let draw = |seed| {
                (0..n)
                    .map(|i| ramp_at(0.0, 256.0, true, n, seed, i, true) as u64)
                    .collect::<Vec<_>>()
            };
            let (a, b) = (draw(1), draw(2));
            let sorted = |v: &[u64]| {
                let mut v = v.to_vec();
                v.sort_unstable();
                v
            };
            assert_eq!(sorted(&a), ramp, "n = {n}: not the ramp's values");
            assert_eq!(sorted(&b), ramp);
            if n >= 1000 {
                assert_ne!(a, b, "n = {n}: two seeds, one order");
                assert_ne!(a, ramp, "n = {n}: not shuffled");
                // Neighbours scatter: a warp's 32 elements take many shades, not a run.
                let shades: std::collections::BTreeSet<u64> = a[..32].iter().copied().collect();
                assert!(shades.len() > 20, "n = {n}: {shades:?}");
            }
        }
        // Floats are not rounded.
        assert_eq!(ramp_at(0.0, 1.0, false, 4, 0, 1, false), 0.25);
    }
    use crate::model::builder::LessonBuilder;

    #[test]
    fn a_sweeps_point_in_words_gives_its_unit() {
        let l = LessonBuilder::new("x")
            .sweep("ws", "WS_MIB", "working set (MiB)", &[4, 8])
            .sweep(
                "max-l1",
                "SET_KIB",
                "chain's set (KiB), carve-out max_l1",
                &[64],
            )
            .sweep("s", "STRIDE", "STRIDE", &[2])
            .build();
        let words = |name: &str| {
            let (s, p) = l.sweep_point(name).unwrap();
            s.point_words(p.value)
        };
        assert_eq!(words("ws-8"), "working set 8 MiB");
        assert_eq!(words("max-l1-64"), "chain's set 64 KiB");
        assert_eq!(words("s-2"), "STRIDE = 2");
        assert!(l.sweep_point("ws").is_none());
    }

    #[test]
    fn a_compile_targets_at_least_the_capability_the_lesson_requires() {
        let mut l = LessonBuilder::new("a").variant("v").build();
        assert_eq!(l.requires.arch_for("sm_80"), "sm_80");
        l.requires.cc = Some((9, 0));
        assert_eq!(l.requires.arch_for("sm_80"), "sm_90");
        assert_eq!(l.requires.arch_for("sm_90"), "sm_90");
        assert_eq!(l.requires.arch_for("sm_90a"), "sm_90a");
        assert_eq!(l.requires.arch_for("sm_100"), "sm_100");
        l.requires.cc = Some((10, 0));
        assert_eq!(l.requires.arch_for("sm_90"), "sm_100");
    }

    #[test]
    fn the_arch_on_a_device_is_its_own_and_the_default_without_one() {
        let mut l = LessonBuilder::new("a").variant("v").build();
        assert_eq!(l.arch_on(None), crate::model::protocol::FALLBACK_ARCH);
        let a100 = crate::model::results::DeviceInfo {
            cc: "8.0".into(),
            ..Default::default()
        };
        assert_eq!(l.arch_on(Some(&a100)), "sm_80");
        l.requires.cc = Some((9, 0));
        assert_eq!(l.arch_on(Some(&a100)), "sm_90");
    }

    #[test]
    fn topic_ids_are_the_serde_names() {
        for m in Topic::ALL {
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.id()));
            assert_ne!(m.label(), "?");
        }
    }
}
