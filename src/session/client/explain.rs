//! A fault in words a learner can act on: each CUDA error a kernel can end with names a
//! different mistake, so each gets its own advice instead of one sentence for all.

/// What the learner should look for in the kernel, for the driver's error `code`
/// ("CUDA_ERROR_ILLEGAL_ADDRESS"), as the worker sent it.
pub fn advice(code: Option<&str>) -> &'static str {
    match code.unwrap_or("") {
        "CUDA_ERROR_ILLEGAL_ADDRESS" => {
            "A thread read or wrote an address outside every buffer: an index past the end \
             (is there a bounds test such as `if (i < n)`, and does the grid cover only n?), \
             or a stack overflow — deep or endless recursion, or large local arrays — that \
             ran past the thread's stack."
        }
        "CUDA_ERROR_MISALIGNED_ADDRESS" => {
            "A vector access was not aligned to its size: a float4 or int4 must sit at an \
             address that is a multiple of 16 bytes, a float2 of 8. Offset the pointer by \
             whole vectors, or load the unaligned edges as scalars."
        }
        "CUDA_ERROR_LAUNCH_FAILED" => {
            "The kernel stopped on an unspecified fault: a `__trap()` it called, or a fault \
             the GPU could not name more precisely."
        }
        "CUDA_ERROR_ASSERT" => {
            "A device-side assert failed: its condition was false for at least one thread \
             (the message above names the file, line, block and thread when the GPU said)."
        }
        "CUDA_ERROR_HARDWARE_STACK_ERROR" => {
            "The call stack overflowed: recursion too deep, or too many nested calls."
        }
        "CUDA_ERROR_ILLEGAL_INSTRUCTION" | "CUDA_ERROR_INVALID_PC" => {
            "The GPU met an instruction it cannot run: a jump through a bad function \
             pointer, or code built for another GPU."
        }
        "CUDA_ERROR_INVALID_ADDRESS_SPACE" => {
            "A pointer to one memory space (shared, local, constant) was used as another."
        }
        _ => "The kernel faulted on the GPU.",
    }
}

/// The assert message a device-side `assert` left in the worker's stderr, if any:
/// "corpus.cu:30: void copy(...): block: [0,0,0], thread: [7,0,0] Assertion `i != 7` failed."
pub fn assert_line(stderr_tail: &str) -> Option<String> {
    stderr_tail
        .split(" / ")
        .flat_map(str::lines)
        .find(|l| l.contains("Assertion") && l.contains("failed"))
        .map(|l| l.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_has_its_own_words() {
        let codes = [
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_ASSERT",
        ];
        let words: Vec<&str> = codes.iter().map(|c| advice(Some(c))).collect();
        for (i, w) in words.iter().enumerate() {
            assert!(words[i + 1..].iter().all(|o| o != w), "{w}");
        }
        assert!(words[0].contains("stack overflow") && words[0].contains("past the end"));
        assert!(words[1].contains("aligned"));
        assert!(words[2].contains("__trap()"));
        assert!(words[3].contains("assert"));
        // No code (a fault the driver did not name): the plain words.
        assert_eq!(advice(None), "The kernel faulted on the GPU.");
    }

    #[test]
    fn the_assert_message_is_found_in_the_stderr_tail() {
        let tail = "signal: 3 / x.cu:30: void copy(): block: [0,0,0], thread: [7,0,0] \
                    Assertion `i != 7` failed. / other";
        assert_eq!(
            assert_line(tail).as_deref(),
            Some(
                "x.cu:30: void copy(): block: [0,0,0], thread: [7,0,0] Assertion `i != 7` failed."
            )
        );
        assert_eq!(assert_line("nothing here"), None);
    }
}
