//! Problem sizes a lesson takes from the GPU it runs on. A lesson names them in `problem`
//! with the H100's figure as the value it is read with when no GPU is known
//! (`gpu_l2_bytes: 52428800`), and sizes what depends on the device from them
//! (`hot_mib: "gpu_l2_bytes / 1048576 / 2"`). Once the GPU is known (live, or the
//! recording's device on replay) the lesson is read again with the GPU's own figures, so
//! a premise such as "the stream is larger than the L2" holds on any GPU, and prose that
//! writes `{{ gpu_l2_bytes / 1048576 }} MiB` says this GPU's size.

use crate::model::results::DeviceInfo;

/// The device's figures a lesson may size its problem from, and what each is.
pub const DEVICE_SIZES: [(&str, &str); 6] = [
    ("gpu_l2_bytes", "the L2 cache's size in bytes"),
    ("gpu_sms", "the number of SMs"),
    ("gpu_smem_per_sm", "shared memory per SM in bytes"),
    (
        "gpu_smem_per_block",
        "the most shared memory one block may opt in to, in bytes",
    ),
    ("gpu_regs_per_sm", "32-bit registers per SM"),
    ("gpu_threads_per_sm", "the most resident threads per SM"),
];

/// Whether `name` is spelled as a device figure (`gpu_...`): such a name must be one of
/// `DEVICE_SIZES`, so a misspelt one is an error instead of a size that never changes.
pub fn is_device_name(name: &str) -> bool {
    name.starts_with("gpu_")
}

pub fn is_known_device_name(name: &str) -> bool {
    DEVICE_SIZES.iter().any(|(n, _)| *n == name)
}

/// The figures `device` reports, by name; a figure it did not report (0, as in
/// recordings made before it was kept) is left out, and the lesson keeps its own value.
pub fn device_sizes(device: &DeviceInfo) -> Vec<(String, i64)> {
    let figures = [
        ("gpu_l2_bytes", device.l2_bytes as i64),
        ("gpu_sms", device.sms as i64),
        ("gpu_smem_per_sm", device.smem_per_sm as i64),
        ("gpu_smem_per_block", device.smem_per_block_optin as i64),
        ("gpu_regs_per_sm", device.regs_per_sm as i64),
        ("gpu_threads_per_sm", device.max_threads_per_sm as i64),
    ];
    figures
        .into_iter()
        .filter(|(_, v)| *v > 0)
        .map(|(n, v)| (n.to_string(), v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_figure_a_device_reports_is_named_and_known() {
        let d = DeviceInfo {
            l2_bytes: 62914560,
            sms: 132,
            smem_per_sm: 233472,
            smem_per_block_optin: 232448,
            regs_per_sm: 65536,
            max_threads_per_sm: 2048,
            ..Default::default()
        };
        let sizes = device_sizes(&d);
        assert_eq!(sizes.len(), DEVICE_SIZES.len());
        assert!(sizes.iter().all(|(n, _)| is_known_device_name(n)));
        assert!(sizes.contains(&("gpu_l2_bytes".to_string(), 62914560)));
    }

    #[test]
    fn an_unreported_figure_keeps_the_lessons_value() {
        let d = DeviceInfo {
            sms: 132,
            ..Default::default()
        };
        assert_eq!(device_sizes(&d), vec![("gpu_sms".to_string(), 132)]);
    }
}
