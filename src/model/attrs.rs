//! Launch attributes a variant may ask for (docs/lesson-format.md, `launch.cluster`,
//! `launch.l2_window` and `launch.carveout`). The default means "an ordinary launch", so
//! lessons without them are unchanged, in memory and in JSON.

use serde::{Deserialize, Serialize};

/// Attributes passed with a variant's launch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchAttrs {
    /// Thread-block cluster dimensions (x, y, z); the grid is a multiple of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<[u32; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_window: Option<L2Window>,
    /// The share of the SM's L1 + shared-memory pool the kernel would like as shared memory,
    /// in percent of the most it can have (0: the largest L1, 100: the largest shared
    /// memory). A preference: the driver still gives a block the shared memory it needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carveout: Option<u8>,
}

/// The carve-out's words, as `launch.carveout` accepts them beside a percentage.
pub const CARVEOUT_MAX_L1: u8 = 0;
pub const CARVEOUT_MAX_SHARED: u8 = 100;

impl LaunchAttrs {
    pub fn is_empty(&self) -> bool {
        self.cluster.is_none() && self.l2_window.is_none() && self.carveout.is_none()
    }

    /// Blocks in one cluster (1 without clusters).
    pub fn cluster_blocks(&self) -> u32 {
        self.cluster.map_or(1, |c| c.iter().product())
    }
}

/// An L2 access-policy window over one buffer: `fraction` of its accesses get `hit`, the
/// rest `miss`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct L2Window {
    /// Index into `Lesson::buffers`.
    pub buffer: usize,
    pub fraction: f32,
    pub hit: L2Access,
    pub miss: L2Access,
}

/// How the L2 treats lines of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum L2Access {
    Normal,
    Streaming,
    Persisting,
}

impl L2Access {
    pub fn parse(s: &str) -> Option<L2Access> {
        match s {
            "normal" => Some(L2Access::Normal),
            "streaming" => Some(L2Access::Streaming),
            "persisting" => Some(L2Access::Persisting),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_attrs_are_an_ordinary_launch() {
        let a = LaunchAttrs::default();
        assert!(a.is_empty());
        assert_eq!(a.cluster_blocks(), 1);
        assert_eq!(serde_json::to_string(&a).unwrap(), "{}");
        let c = LaunchAttrs {
            cluster: Some([2, 2, 1]),
            l2_window: None,
            carveout: None,
        };
        assert_eq!(c.cluster_blocks(), 4);
        let k = LaunchAttrs {
            carveout: Some(CARVEOUT_MAX_L1),
            ..LaunchAttrs::default()
        };
        assert!(!k.is_empty());
        assert_eq!(serde_json::to_string(&k).unwrap(), r#"{"carveout":0}"#);
        let back: LaunchAttrs = serde_json::from_str(r#"{"carveout":100}"#).unwrap();
        assert_eq!(back.carveout, Some(CARVEOUT_MAX_SHARED));
        assert_eq!(L2Access::parse("persisting"), Some(L2Access::Persisting));
        assert_eq!(L2Access::parse("sticky"), None);
    }
}
