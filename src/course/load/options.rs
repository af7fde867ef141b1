//! The NVRTC options a lesson may give (`options:` of a variant or an exercise), from an
//! allow-list of what lessons need: a define, a register cap, the C++ standard, line info,
//! and the flags that change only how maths is compiled. Everything else is refused at its
//! place, since an option can make NVRTC read or write any file (`--pre-include=PATH`,
//! `-I/`, `-fdevice-time-trace=PATH`) or change what the lab itself set (the architecture).

/// Why `option` is not allowed; None when it is.
pub(super) fn refused(option: &str) -> Option<String> {
    if allowed(option) {
        return None;
    }
    Some(format!(
        "NVRTC option `{option}` is not allowed: a lesson may give only -DNAME[=value], \
         -maxrregcount=N (1 to 255), --std=c++NN, -lineinfo, --use_fast_math, -G, and \
         --ftz/--prec-div/--prec-sqrt/--fmad=true|false (options that name files or set \
         the architecture are the lab's)"
    ))
}

fn allowed(option: &str) -> bool {
    // One dash or two, as NVRTC takes either for its long names.
    let long = option
        .strip_prefix("--")
        .or_else(|| option.strip_prefix('-'))
        .unwrap_or("");
    if let Some(def) = option
        .strip_prefix("-D")
        .or_else(|| long.strip_prefix("define-macro="))
    {
        let name = def.split('=').next().unwrap_or_default();
        return crate::course::expr::is_identifier(name) && !def.contains(['\n', '\r', '\0']);
    }
    if let Some(n) = long.strip_prefix("maxrregcount=") {
        return n.parse::<u32>().is_ok_and(|n| (1..=255).contains(&n));
    }
    if let Some(std) = long.strip_prefix("std=") {
        return matches!(std, "c++03" | "c++11" | "c++14" | "c++17" | "c++20");
    }
    for flag in ["ftz=", "prec-div=", "prec-sqrt=", "fmad="] {
        if let Some(v) = long.strip_prefix(flag) {
            return matches!(v, "true" | "false");
        }
    }
    matches!(
        long,
        "lineinfo" | "generate-line-info" | "use_fast_math" | "G" | "device-debug"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_lessons_need_is_allowed_and_what_reaches_files_is_not() {
        for ok in [
            "-maxrregcount=32",
            "--maxrregcount=64",
            "-DSTRIDE=4",
            "-DDEBUG",
            "--define-macro=X=1",
            "--std=c++17",
            "-std=c++20",
            "-lineinfo",
            "--use_fast_math",
            "-use_fast_math",
            "-G",
            "--ftz=true",
            "-fmad=false",
        ] {
            assert_eq!(refused(ok), None, "{ok}");
        }
        for bad in [
            "-fdevice-time-trace=/home/me/.local/share/gpulab/exercises.json",
            "--pre-include=/etc/passwd",
            "-include=/etc/passwd",
            "-I/",
            "--include-path=/etc",
            "--gpu-architecture=sm_50",
            "-arch=sm_50",
            "--ptxas-options=-v",
            "-maxrregcount=0",
            "-maxrregcount=1000",
            "-D1X=2",
            "--std=gnu++17",
            "-lineinfo=1",
            "--time=/tmp/t.csv",
            "",
        ] {
            let why = refused(bad).unwrap_or_else(|| panic!("{bad} was allowed"));
            assert!(why.contains(&format!("`{bad}`")), "{why}");
        }
    }
}
