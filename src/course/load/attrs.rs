//! Launch attributes (`launch.cluster`, `launch.l2_window`, `launch.carveout`) and the
//! lesson's `l2_persisting_bytes` (docs/lesson-format.md). Clusters need compute capability 9.0, so a
//! lesson with one requires it even where it does not say so.

use super::cx::{Cx, Known};
use crate::course::schema::{CarveoutText, RawL2Window};
use crate::course::schema::{Dims, Expr, RawLesson};
use crate::model::attrs::{CARVEOUT_MAX_L1, CARVEOUT_MAX_SHARED};
use crate::model::{Buffer, L2Access, L2Window, LaunchAttrs, Requires, Variant};

/// Blocks in a cluster that every CC 9.0 GPU accepts; more needs a non-portable opt-in.
pub(crate) const PORTABLE_CLUSTER: u32 = 8;

/// The attributes a variant was written with (itself or through `like:`), each with the
/// path it was written at.
pub(super) struct Written<'a> {
    pub cluster: Option<&'a (Dims, String)>,
    pub window: Option<&'a (RawL2Window, String)>,
    pub carveout: Option<&'a (CarveoutText, String)>,
}

/// A variant's attributes; `grid` is the evaluated grid (None when it had errors, which
/// were reported). Every attribute is checked, so each error is reported at once.
pub(super) fn launch_attrs(
    cx: &mut Cx,
    w: Written,
    env: &[(String, i64)],
    grid: Option<[u32; 3]>,
    known: &Known,
) -> Option<LaunchAttrs> {
    let cluster = w.cluster.map(|c| cluster_dims(cx, c, env, grid));
    let l2_window = w.window.map(|win| l2_window(cx, win, known));
    let carveout = w.carveout.map(|c| carveout(cx, c));
    Some(LaunchAttrs {
        cluster: cluster.map_or(Some(None), |c| c.map(Some))?,
        l2_window: l2_window.map_or(Some(None), |c| c.map(Some))?,
        carveout: carveout.map_or(Some(None), |c| c.map(Some))?,
    })
}

/// `launch.carveout`: a whole percentage from 0 to 100, or `max_l1` (0) or `max_shared`
/// (100), the words for its two ends.
fn carveout(cx: &mut Cx, (text, path): &(CarveoutText, String)) -> Option<u8> {
    let t = text.0.trim();
    let value = match t {
        "max_l1" => Some(CARVEOUT_MAX_L1),
        "max_shared" => Some(CARVEOUT_MAX_SHARED),
        _ => t
            .parse::<i64>()
            .ok()
            .filter(|p| (0..=i64::from(CARVEOUT_MAX_SHARED)).contains(p))
            .and_then(|p| u8::try_from(p).ok()),
    };
    if value.is_none() {
        cx.err(
            path,
            format!(
                "`carveout` is a whole percentage from 0 to 100 (of the most shared memory an \
                 SM can have), or max_l1 or max_shared, not `{t}`"
            ),
        );
    }
    value
}

fn cluster_dims(
    cx: &mut Cx,
    dims: &(Dims, String),
    env: &[(String, i64)],
    grid: Option<[u32; 3]>,
) -> Option<[u32; 3]> {
    let limit = i64::from(PORTABLE_CLUSTER);
    let (out, paths) = super::launch::axes(cx, dims, env, "cluster", [limit; 3])?;
    let path = &dims.1;
    let mut ok = true;
    for (k, at) in paths.iter().enumerate() {
        if let Some(g) = grid
            && g[k] % out[k] != 0
        {
            let axis = ["x", "y", "z"][k];
            let msg = format!(
                "grid {axis} ({}) is not a multiple of cluster {axis} ({})",
                g[k], out[k]
            );
            cx.err(at, msg);
            ok = false;
        }
    }
    let blocks: u32 = out.iter().product();
    if ok && blocks > PORTABLE_CLUSTER {
        let msg =
            format!("a cluster has at most {PORTABLE_CLUSTER} blocks (this one has {blocks})");
        cx.err(path, msg);
        ok = false;
    }
    ok.then_some(out)
}

fn l2_window(cx: &mut Cx, (w, path): &(RawL2Window, String), known: &Known) -> Option<L2Window> {
    let buf_at = format!("{path}.buffer");
    let buffer = match known.buffer_names.iter().position(|n| *n == w.buffer) {
        Some(j) => known.buffers.get(j)?.as_ref().map(|_| j),
        None => {
            let names = known.buffer_names.join(", ");
            cx.err(
                &buf_at,
                format!("unknown buffer `{}` (buffers: {names})", w.buffer),
            );
            None
        }
    };
    let fraction = w.fraction.unwrap_or(1.0);
    let fraction_ok = (0.0..=1.0).contains(&fraction);
    if !fraction_ok {
        cx.err(
            &format!("{path}.fraction"),
            format!("`fraction` is 0 to 1 (the share of accesses that get `hit`), not {fraction}"),
        );
    }
    let hit = access(cx, path, "hit", w.hit.as_deref(), L2Access::Persisting);
    let miss = access(cx, path, "miss", w.miss.as_deref(), L2Access::Streaming);
    Some(L2Window {
        buffer: buffer?,
        fraction: fraction_ok.then_some(fraction as f32)?,
        hit: hit?,
        miss: miss?,
    })
}

fn access(
    cx: &mut Cx,
    path: &str,
    key: &str,
    text: Option<&str>,
    default: L2Access,
) -> Option<L2Access> {
    let Some(t) = text else {
        return Some(default);
    };
    let parsed = L2Access::parse(t);
    if parsed.is_none() {
        cx.err(
            &format!("{path}.{key}"),
            format!("`{key}` is normal, streaming or persisting, not `{t}`"),
        );
    }
    parsed
}

/// `l2_persisting_bytes`: an expression over the problem sizes, at least 0.
pub(super) fn persisting_bytes(
    cx: &mut Cx,
    raw: &RawLesson,
    problem: &[(String, i64)],
) -> Option<u64> {
    let e: &Expr = raw.head.l2_persisting_bytes.as_ref()?;
    let v = cx.eval("l2_persisting_bytes", e, problem)?;
    match u64::try_from(v) {
        Ok(b) => Some(b),
        Err(_) => {
            let msg = format!(
                "`l2_persisting_bytes` must be at least 0 (`{}` is {v})",
                e.0
            );
            cx.err("l2_persisting_bytes", msg);
            None
        }
    }
}

/// Clusters need CC 9.0: a lesson with any raises what it requires to at least that.
pub(super) fn with_cluster_requirement(mut r: Requires, variants: Option<&[Variant]>) -> Requires {
    let clustered = variants.is_some_and(|vs| vs.iter().any(|v| v.attrs.cluster.is_some()));
    if clustered && r.cc.is_none_or(|cc| cc < (9, 0)) {
        r.cc = Some((9, 0));
    }
    r
}

/// A buffer on the peer GPU makes the lesson need two GPUs, whatever `requires` says.
pub(super) fn with_peer_requirement(mut r: Requires, buffers: &[Option<Buffer>]) -> Requires {
    if buffers.iter().flatten().any(|b| b.gpu == 1) && r.gpus.is_none_or(|n| n < 2) {
        r.gpus = Some(2);
    }
    r
}
