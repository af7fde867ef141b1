//! The optional keys added to the format after its first lessons (docs/lesson-format.md):
//! `constants` and `sweep` on a variant; `tolerance`, `measures` and `requires` at the top. Like the
//! rest of the schema, every struct denies unknown keys.

use super::schema::Expr;
use serde::Deserialize;

/// `constants: [{ symbol: table, from: tbl }]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConstant {
    pub symbol: String,
    pub from: String,
}

/// `tolerance: { rel: 1e-5, abs: 1e-6 }`; a key left out keeps its default.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTolerance {
    pub rel: Option<f64>,
    pub abs: Option<f64>,
}

/// `measures: [{ name, from, summary, per, unit }]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeasure {
    pub name: String,
    pub from: String,
    pub summary: String,
    pub per: Option<Expr>,
    pub unit: String,
}

/// `requires: { cc: "9.0", gpus: 2 }`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRequires {
    pub cc: Option<CcText>,
    pub gpus: Option<u32>,
}

/// A compute capability as written: `"9.0"`, or `9.0` (a YAML float, read back as text).
#[derive(Debug, Clone, PartialEq)]
pub struct CcText(pub String);

impl<'de> Deserialize<'de> for CcText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Any {
            Text(String),
            Float(f64),
            Int(u32),
        }
        Ok(CcText(match Any::deserialize(d)? {
            Any::Text(s) => s,
            Any::Float(x) => format!("{x:?}"),
            Any::Int(n) => format!("{n}.0"),
        }))
    }
}

/// `sweep: { define: WS_MIB, values: [4, 8], name: "ws-{}", x: "working set (MiB)" }` on a
/// variant: one variant per value, named by `name` with `{}` replaced by the value.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSweep {
    pub define: String,
    pub values: Vec<Expr>,
    pub name: String,
    pub x: Option<String>,
}

/// `knobs: [{ define: STRIDE, values: [1, 2, 4] }]` on a variant, or `option: maxrregcount`
/// in place of `define`, or `range: { from: 0, to: 4 }` in place of `values`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKnob {
    pub define: Option<String>,
    pub option: Option<String>,
    pub values: Option<Vec<Expr>>,
    pub range: Option<RawRange>,
    pub label: Option<String>,
}

/// `range: { from: 0, to: 4, step: 1 }`: both ends included.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRange {
    pub from: Expr,
    pub to: Expr,
    pub step: Option<Expr>,
}

/// `launch.l2_window: { buffer: hot, fraction: 1.0, hit: persisting, miss: streaming }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawL2Window {
    pub buffer: String,
    pub fraction: Option<f64>,
    pub hit: Option<String>,
    pub miss: Option<String>,
}

/// `textures: [{ name, from, width, height, address, filter, normalized, read }]`; the
/// modes are text here so that an unknown one is named with those allowed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTexture {
    pub name: String,
    pub from: String,
    pub width: Expr,
    pub height: Expr,
    pub address: Option<String>,
    pub filter: Option<String>,
    pub normalized: Option<bool>,
    pub read: Option<String>,
}

/// One `exercises[]` entry: the learner's kernel as one more variant of the lesson.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawExercise {
    pub id: String,
    pub title: String,
    pub task: String,
    pub starter: String,
    pub solution: String,
    pub kernel: Option<String>,
    pub like: Option<String>,
    pub launch: Option<super::schema::RawLaunch>,
    pub args: Option<Vec<super::schema::RawArg>>,
    pub defines: Option<super::schema::OrderedMap<super::schema::DefineValue>>,
    pub options: Option<Vec<String>>,
    /// 1 (a first step) to 3 (a puzzle), shown in `ex list` and the lab.
    pub difficulty: u8,
    /// About how long it should take, in minutes.
    pub minutes: u32,
    pub hints: Vec<String>,
    pub checks: Vec<String>,
    pub sizes: Option<Vec<super::schema::OrderedMap<i64>>>,
    pub sizes_cpu: Option<Vec<super::schema::OrderedMap<i64>>>,
    pub editing: Option<super::schema::OrderedMap<i64>>,
    pub seeds: Option<u32>,
    pub reference: Option<String>,
    pub random: Option<Vec<String>>,
}

/// `reference: { builtin: ..., from, to, ... }`: a built-in reference. `copy` and
/// `transpose` are computed on the CPU; `sgemm` (to = from x times, row-major, rows x depth
/// times depth x cols) by cuBLAS on the GPU.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuiltin {
    pub builtin: String,
    pub from: String,
    pub to: String,
    pub rows: Option<Expr>,
    pub cols: Option<Expr>,
    pub times: Option<String>,
    pub depth: Option<Expr>,
}
