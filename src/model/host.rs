//! The host side of a lesson: where a buffer lives (device memory, pinned host memory a
//! kernel reads through the link, managed memory that migrates), a variant that is a copy
//! between host and device instead of a kernel, and the PCIe link both cross.

use serde::{Deserialize, Serialize};

/// Where a buffer's memory is (`memory:` on a buffer). Only inputs may live off the device:
/// the lesson is about reading host memory, and outputs are checked through device copies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// `cuMemAlloc`: the GPU's own memory.
    #[default]
    Device,
    /// Pinned host memory mapped into the GPU's address space (`cuMemHostAlloc` with
    /// `DEVICEMAP`): every load a kernel makes crosses the link ("zero-copy").
    Mapped,
    /// `cuMemAllocManaged`: one address for host and GPU; pages move where they are touched.
    Managed,
}

impl Memory {
    pub fn is_device(&self) -> bool {
        *self == Memory::Device
    }
}

/// One end of a copy (`transfer: { from, to }`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Ordinary host memory (a `Vec`): the driver copies it through a pinned staging
    /// buffer of its own, a piece at a time.
    Pageable,
    /// Page-locked host memory (`cuMemHostAlloc`): the copy engine reads it directly.
    Pinned,
    /// The buffer's device memory.
    Device,
}

impl Side {
    pub fn id(self) -> &'static str {
        match self {
            Side::Pageable => "pageable",
            Side::Pinned => "pinned",
            Side::Device => "device",
        }
    }
}

/// A variant that is one copy of a buffer's bytes between host and device, timed as a
/// kernel is (events around it, the same median and noise). One end is `Device`, the
/// other host memory of either kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    pub from: Side,
    pub to: Side,
    /// Index into `Lesson::buffers`: its device memory is the device end, its input data
    /// what is copied.
    pub buffer: usize,
}

impl Transfer {
    /// The host end's kind: the one that is not the device.
    pub fn host_side(&self) -> Side {
        if self.from == Side::Device {
            self.to
        } else {
            self.from
        }
    }

    /// Host to device (else device to host).
    pub fn to_device(&self) -> bool {
        self.to == Side::Device
    }

    /// "H2D pinned", the words for the column.
    pub fn describe(&self) -> String {
        let dir = if self.to_device() { "H2D" } else { "D2H" };
        format!("{dir} {}", self.host_side().id())
    }
}

/// The GPU's PCIe link as NVML reports it: the generation and lane count it runs at now
/// (an idle GPU may train down to save power) and the most it and the slot allow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcieLink {
    pub gen_now: u8,
    pub width_now: u8,
    pub gen_max: u8,
    pub width_max: u8,
}

impl PcieLink {
    /// The link's theoretical bandwidth in one direction, GB/s (10^9 bytes), at its
    /// maximum generation and width (the GPU trains up under load, so the maximum is what
    /// a copy runs at). Per lane, from the PCI-SIG's transfer rates and line codes: Gen 1
    /// and 2 send 8 bits in 10 (2.5 and 5 GT/s), Gen 3 to 5 128 in 130 (8, 16, 32 GT/s),
    /// Gen 6 64 GT/s in FLITs of which 242 bytes in 256 carry data. Packet headers cost a
    /// further few percent that no copy gets back. None for a generation not known.
    pub fn theoretical_gbps(&self) -> Option<f64> {
        let per_lane_gtps_times_code = match self.gen_max {
            1 => 2.5 * 8.0 / 10.0,
            2 => 5.0 * 8.0 / 10.0,
            3 => 8.0 * 128.0 / 130.0,
            4 => 16.0 * 128.0 / 130.0,
            5 => 32.0 * 128.0 / 130.0,
            6 => 64.0 * 242.0 / 256.0,
            _ => return None,
        };
        (self.width_max > 0).then(|| per_lane_gtps_times_code / 8.0 * f64::from(self.width_max))
    }

    /// "Gen 5 x16 (now Gen 1 x16)", or "Gen 5 x16" when it runs at its maximum.
    pub fn describe(&self) -> String {
        let max = format!("Gen {} x{}", self.gen_max, self.width_max);
        if (self.gen_now, self.width_now) == (self.gen_max, self.width_max) {
            max
        } else {
            format!("{max} (now Gen {} x{})", self.gen_now, self.width_now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gen5_x16_link_carries_63_gb_per_second_each_way() {
        let l = PcieLink {
            gen_now: 1,
            width_now: 16,
            gen_max: 5,
            width_max: 16,
        };
        let g = l.theoretical_gbps().unwrap();
        assert!((g - 63.015).abs() < 0.01, "{g}");
        let gen4 = PcieLink { gen_max: 4, ..l };
        assert!((gen4.theoretical_gbps().unwrap() - 31.51).abs() < 0.01);
        let gen3_x8 = PcieLink {
            gen_max: 3,
            width_max: 8,
            ..l
        };
        assert!((gen3_x8.theoretical_gbps().unwrap() - 7.877).abs() < 0.01);
        assert_eq!(PcieLink { gen_max: 9, ..l }.theoretical_gbps(), None);
        assert_eq!(PcieLink::default().theoretical_gbps(), None);
        assert_eq!(l.describe(), "Gen 5 x16 (now Gen 1 x16)");
        assert_eq!(PcieLink { gen_now: 5, ..l }.describe(), "Gen 5 x16");
    }

    #[test]
    fn a_transfer_names_its_direction_and_host_memory() {
        let t = Transfer {
            from: Side::Pinned,
            to: Side::Device,
            buffer: 0,
        };
        assert!(t.to_device());
        assert_eq!(t.describe(), "H2D pinned");
        let back = Transfer {
            from: Side::Device,
            to: Side::Pageable,
            buffer: 0,
        };
        assert_eq!(back.host_side(), Side::Pageable);
        assert_eq!(back.describe(), "D2H pageable");
    }
}
