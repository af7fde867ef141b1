//! The lesson file as written (docs/lesson-format.md), before validation: the top level, a
//! variant, and the optional keys (constants, sweeps, knobs, tolerance, measures, requires,
//! textures, exercises, a built-in reference). Every struct denies unknown keys so a
//! misspelt key is an error. Expressions stay text here; the loader evaluates them once it
//! knows the names.

use crate::model::ElemType;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de::value::MapAccessDeserializer};
use std::fmt;

/// The top-level keys other than the four lists. The loader reads each top-level entry on its
/// own, and each element of `pages`, `buffers`, `variants` and `checkpoint` on its own, so one
/// bad entry does not hide the errors of the others; the lists are named here only so that an
/// unknown top-level key is reported with every key that is allowed.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHead {
    pub format_version: Option<i64>,
    pub id: Option<String>,
    pub title: Option<String>,
    pub space: Option<String>,
    pub pages: Option<IgnoredAny>,
    pub problem: Option<OrderedMap<Expr>>,
    pub problem_cpu: Option<OrderedMap<i64>>,
    pub buffers: Option<IgnoredAny>,
    pub variants: Option<IgnoredAny>,
    pub reference: Option<RawReference>,
    pub metrics: Option<RawMetrics>,
    pub expect: Option<Vec<String>>,
    pub trace: Option<RawTrace>,
    pub checkpoint: Option<IgnoredAny>,
    pub tolerance: Option<RawTolerance>,
    pub measures: Option<Vec<RawMeasure>>,
    pub requires: Option<RawRequires>,
    pub l2_persisting_bytes: Option<Expr>,
    pub textures: Option<Vec<RawTexture>>,
    pub exercises: Option<IgnoredAny>,
}

/// A whole lesson file: the head and every list element that could be read (`None` where an
/// element had errors, which were reported).
#[derive(Debug, Default)]
pub struct RawLesson {
    pub head: RawHead,
    pub pages: Vec<Option<RawPage>>,
    pub buffers: Vec<Option<RawBuffer>>,
    pub variants: Vec<Option<RawVariant>>,
    pub checkpoint: Vec<Option<RawQuestion>>,
    pub exercises: Vec<Option<RawExercise>>,
    /// Top-level keys whose value could not be read (their errors are already reported).
    pub failed: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPage {
    pub title: String,
    pub text: String,
    /// The page answers the lesson's predictions: closed until the lesson has run.
    #[serde(default)]
    pub answers: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawInit {
    Random,
    Seq,
    Ramp,
    Shuffled,
    Zeros,
    Poison,
    Const,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuffer {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ElemType,
    pub len: Expr,
    pub init: RawInit,
    pub value: Option<f64>,
    pub range: Option<(f64, f64)>,
    /// Which of the lesson's GPUs holds it: 0 (the one that runs the kernels) or 1 (its peer).
    pub gpu: Option<u32>,
    /// `device` (default), `mapped` or `managed`.
    pub memory: Option<crate::model::host::Memory>,
}

/// A variant; with `like`, every key is optional and overrides the parent's.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawVariant {
    pub name: String,
    pub like: Option<String>,
    pub source: Option<String>,
    pub kernel: Option<String>,
    pub defines: Option<OrderedMap<DefineValue>>,
    pub launch: Option<RawLaunch>,
    pub args: Option<Vec<RawArg>>,
    pub options: Option<Vec<String>>,
    pub note: Option<String>,
    pub constants: Option<Vec<RawConstant>>,
    pub sweep: Option<RawSweep>,
    pub knobs: Option<Vec<RawKnob>>,
    pub cold_l2: Option<bool>,
    /// A copy between host and device in place of a kernel.
    pub transfer: Option<RawTransfer>,
    /// Managed buffers moved to the GPU in bulk before the kernel, inside the timing.
    pub prefetch: Option<bool>,
}

/// `transfer: { from, to, buffer }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTransfer {
    pub from: crate::model::host::Side,
    pub to: crate::model::host::Side,
    pub buffer: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLaunch {
    pub grid: Option<Dims>,
    pub block: Option<Dims>,
    pub smem: Option<Expr>,
    pub cluster: Option<Dims>,
    pub l2_window: Option<RawL2Window>,
    pub carveout: Option<CarveoutText>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    pub bytes: Option<Expr>,
    pub flops: Option<Expr>,
    pub peak: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    pub blocks: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawQuestion {
    pub q: String,
    pub choices: Vec<String>,
    pub answer: usize,
    pub why: String,
}

/// `reference:` — a variant's name or a built-in CPU reference.
#[derive(Debug, Clone)]
pub enum RawReference {
    Variant(String),
    Builtin(RawBuiltin),
}

/// An integer expression, as written (a YAML integer becomes its decimal text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr(pub String);

/// `launch.grid` / `launch.block`: one expression or a list of them (x, y, z).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dims {
    pub items: Vec<Expr>,
    pub listed: bool,
}

/// A `defines` value, passed to the compiler as text.
#[derive(Debug, Clone, PartialEq)]
pub enum DefineValue {
    Int(i64),
    Float(f64),
    Text(String),
}

impl DefineValue {
    pub fn to_text(&self) -> String {
        match self {
            DefineValue::Int(n) => n.to_string(),
            DefineValue::Float(x) => format!("{x:?}"),
            DefineValue::Text(s) => s.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    I32,
    U32,
    I64,
    U64,
    F32,
}

impl ArgType {
    const NAMES: [(&'static str, ArgType); 5] = [
        ("i32", ArgType::I32),
        ("u32", ArgType::U32),
        ("i64", ArgType::I64),
        ("u64", ArgType::U64),
        ("f32", ArgType::F32),
    ];
}

/// One `args[]` entry.
#[derive(Debug, Clone, PartialEq)]
pub enum RawArg {
    /// A buffer name or an expression (a YAML integer becomes its text); the loader decides
    /// which.
    Text(String),
    Typed(ArgType, Expr),
    /// `{ tex: name }`: a texture object of the lesson.
    Tex(String),
    F32(f64),
    /// `{ f32: 0.25, random: [lo, hi] }`: in an exercise's args, a value an exercise check
    /// draws afresh in `[lo, hi)` for every run (a lesson's run passes the value written).
    F32Drawn(f64, [f64; 2]),
}

/// A mapping whose order matters (`problem`: later entries use earlier ones).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V_<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V_<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, V)> = Vec::new();
                // Keys seen, for the check of a key given twice in linear time: a map of
                // 200,000 sizes took a minute with a scan for each key.
                let mut seen = std::collections::HashSet::new();
                while let Some(k) = map.next_key::<String>()? {
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format!("`{k}` is given twice")));
                    }
                    out.push((k, map.next_value()?));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(V_(std::marker::PhantomData))
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Expr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or an integer expression")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Expr, E> {
                Ok(Expr(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Expr, E> {
                Ok(Expr(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Expr, E> {
                Ok(Expr(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Dims {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Dims;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an expression or a list of 1 to 3 expressions")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dims, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dims, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dims, E> {
                Ok(Dims {
                    items: vec![Expr(v.to_string())],
                    listed: false,
                })
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Dims, A::Error> {
                let mut items = Vec::new();
                while let Some(e) = seq.next_element::<Expr>()? {
                    items.push(e);
                }
                Ok(Dims {
                    items,
                    listed: true,
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for DefineValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DefineValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DefineValue, E> {
                Ok(DefineValue::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DefineValue, E> {
                Ok(i64::try_from(v).map_or(DefineValue::Text(v.to_string()), DefineValue::Int))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DefineValue, E> {
                Ok(DefineValue::Float(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DefineValue, E> {
                Ok(DefineValue::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawArg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a buffer name, an integer expression, or a one-key map such as { u32: n }",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawArg, E> {
                Ok(RawArg::Text(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawArg, E> {
                Ok(RawArg::Text(v.to_string()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawArg, E> {
                Ok(RawArg::Text(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawArg, A::Error> {
                let Some(key) = map.next_key::<String>()? else {
                    return Err(de::Error::custom(
                        "an argument map needs one key: i32, u32, i64, u64, f32 or tex",
                    ));
                };
                if key == "tex" {
                    let name = RawArg::Tex(map.next_value()?);
                    return match map.next_key::<IgnoredAny>()? {
                        Some(_) => Err(de::Error::custom("an argument map has exactly one key")),
                        None => Ok(name),
                    };
                }
                let Some(&(_, ty)) = ArgType::NAMES.iter().find(|(n, _)| *n == key) else {
                    return Err(de::Error::unknown_field(
                        &key,
                        &["i32", "u32", "i64", "u64", "f32", "tex"],
                    ));
                };
                let arg = if ty == ArgType::F32 {
                    RawArg::F32(map.next_value()?)
                } else {
                    RawArg::Typed(ty, map.next_value()?)
                };
                match (map.next_key::<String>()?, arg) {
                    (None, arg) => Ok(arg),
                    (Some(k), RawArg::F32(x)) if k == "random" => {
                        let range: [f64; 2] = map.next_value()?;
                        match map.next_key::<IgnoredAny>()? {
                            Some(_) => Err(de::Error::custom(
                                "an f32 argument has at most the keys f32 and random",
                            )),
                            None => Ok(RawArg::F32Drawn(x, range)),
                        }
                    }
                    (Some(_), RawArg::F32(_)) => Err(de::Error::custom(
                        "an f32 argument has at most the keys f32 and random",
                    )),
                    (Some(_), _) => Err(de::Error::custom("an argument map has exactly one key")),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for RawReference {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawReference;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a variant name or { builtin: copy|transpose, from: .., to: .. }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawReference, E> {
                Ok(RawReference::Variant(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawReference, A::Error> {
                RawBuiltin::deserialize(MapAccessDeserializer::new(map)).map(RawReference::Builtin)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;

// The optional keys.

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

/// `launch.carveout` as written: a percentage (`0`, `100`; a float is kept as text so that
/// the loader can name it) or a word (`max_l1`, `max_shared`); the loader reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct CarveoutText(pub String);

impl<'de> Deserialize<'de> for CarveoutText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Any {
            Int(i64),
            Float(f64),
            Text(String),
        }
        Ok(CarveoutText(match Any::deserialize(d)? {
            Any::Int(n) => n.to_string(),
            Any::Float(x) => format!("{x:?}"),
            Any::Text(s) => s,
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
    pub problem: Option<String>,
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
    pub launch: Option<RawLaunch>,
    pub args: Option<Vec<RawArg>>,
    pub defines: Option<OrderedMap<DefineValue>>,
    pub options: Option<Vec<String>>,
    /// 1 (a first step) to 3 (a puzzle), shown in `ex list` and the lab.
    pub difficulty: u8,
    /// About how long it should take, in minutes.
    pub minutes: u32,
    pub hints: Vec<String>,
    pub checks: Vec<String>,
    pub sizes: Option<Vec<OrderedMap<i64>>>,
    pub sizes_cpu: Option<Vec<OrderedMap<i64>>>,
    pub drawn_size: Option<OrderedMap<[i64; 2]>>,
    pub editing: Option<OrderedMap<i64>>,
    pub seeds: Option<u32>,
    pub times_at_every_size: Option<bool>,
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
