//! The copy bandwidth of this GPU, kept on disk for a while (`disk_cache::PEAKS`): every
//! `gpulab ex check` is a process of its own, and each measured it again in a GPU turn of
//! its own, a tenth of a second of a shared GPU for a figure that a check a minute before
//! had just measured on the same GPU. A kept figure is used only on the GPU at the same PCI
//! address, of the same name, memory and driver, by this gpulab, and for `FRESH_SECS`
//! after it was measured; the stage says how old it is.

use super::disk_cache;
use crate::model::results::DeviceInfo;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a measured copy bandwidth stands in for a new measurement.
pub const FRESH_SECS: u64 = 600;

/// The kept figure's file for this GPU; none where there is no cache folder.
fn path(bus: &str, dev: &DeviceInfo) -> Option<std::path::PathBuf> {
    disk_cache::PEAKS.path(&[
        env!("CARGO_PKG_VERSION").as_bytes(),
        bus.as_bytes(),
        dev.name.as_bytes(),
        dev.driver.as_bytes(),
        &dev.total_mem.to_le_bytes(),
    ])
}

/// A kept copy bandwidth (GB/s) and its age, when one was measured within `FRESH_SECS`.
pub fn kept(bus: &str, dev: &DeviceInfo) -> Option<(f64, Duration)> {
    let bytes = disk_cache::PEAKS.read(&path(bus, dev)?)?;
    read_fresh(&String::from_utf8(bytes).ok()?, SystemTime::now())
}

/// Keep a copy bandwidth just measured.
pub fn keep(bus: &str, dev: &DeviceInfo, gbps: f64) {
    if let Some(p) = path(bus, dev) {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        disk_cache::PEAKS.write(&p, format!("{gbps} {}", now.as_secs()).as_bytes());
    }
}

/// "GBPS SECS" read back at `now`: None when it does not read, or was measured more than
/// `FRESH_SECS` ago, or in the future (a clock set back, or a planted file).
fn read_fresh(text: &str, now: SystemTime) -> Option<(f64, Duration)> {
    let mut words = text.split_whitespace();
    let gbps: f64 = words.next()?.parse().ok()?;
    let at = UNIX_EPOCH + Duration::from_secs(words.next()?.parse().ok()?);
    let age = now.duration_since(at).ok()?;
    (gbps.is_finite() && gbps > 0.0 && age.as_secs() <= FRESH_SECS).then_some((gbps, age))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_figure_stands_for_ten_minutes_and_never_from_the_future() {
        let at = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let text = "4012.5 1000000";
        let after = |s: u64| read_fresh(text, at + Duration::from_secs(s));
        assert_eq!(after(0), Some((4012.5, Duration::ZERO)));
        assert_eq!(after(FRESH_SECS).map(|k| k.0), Some(4012.5));
        assert_eq!(after(FRESH_SECS + 1), None);
        assert_eq!(read_fresh(text, at - Duration::from_secs(1)), None);
        for bad in [
            "",
            "4012.5",
            "NaN 1000000",
            "-3 1000000",
            "0 1000000",
            "x 1",
        ] {
            assert_eq!(read_fresh(bad, at), None, "{bad:?}");
        }
    }
}
