//! Whether a variant's `kernel` is an entry point of its source: a check of the source's
//! text, made when the lesson loads so that a misspelt name is reported at its line rather
//! than at compile time.

use crate::course::signature;

/// The names joined by commas, or `none` (for messages that list what there is).
pub(super) fn list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Why `kernel` is not an entry point of `src`, if it is not. Only code counts, not comments
/// or strings: the name must be declared `__global__`, and `extern "C"` must be written (on
/// it, or anywhere in the file, as a prototype may carry it), without which the name would be
/// mangled and the lab could not find it.
pub(super) fn kernel_problem(src: &str, kernel: &str, path: &str) -> Option<String> {
    let globals = signature::global_functions(src);
    if globals.is_empty() {
        return Some(format!("`{path}` has no __global__ function"));
    }
    if let Some(sig) = globals.iter().find(|s| s.name == kernel) {
        if sig.extern_c || signature::code_only(src).contains("extern \"C\"") {
            return None;
        }
        return Some(format!(
            "`{kernel}` in `{path}` is not declared extern \"C\", so its name is mangled; \
             write `extern \"C\" __global__ void {kernel}(...)`"
        ));
    }
    if let Some(base) = demangled_base(kernel)
        && globals.iter().any(|s| s.name == base)
    {
        return Some(format!(
            "`{kernel}` is a mangled name; declare `{base}` extern \"C\" in `{path}` and write `kernel: {base}`"
        ));
    }
    Some(format!(
        "kernel `{kernel}` is not a __global__ function of `{path}` (it has: {})",
        list(globals.iter().map(|s| s.name.as_str()))
    ))
}

/// `read_stride` from `_Z11read_stridePfi`.
fn demangled_base(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "extern \"C\" __global__ void copy_vec(const float* a, float* b, int n) {}\n\
                       __global__ void other (int x) {}\n";

    #[test]
    fn finds_kernels_by_name() {
        assert_eq!(kernel_problem(SRC, "copy_vec", "k.cu"), None);
        assert_eq!(kernel_problem(SRC, "other", "k.cu"), None);
        let e = kernel_problem(SRC, "copy", "k.cu").unwrap();
        assert!(e.contains("not a __global__ function"), "{e}");
        assert!(e.contains("it has: copy_vec, other"), "{e}");
    }

    #[test]
    fn suggests_extern_c() {
        let plain = "__global__ void k(float* x) {}";
        let e = kernel_problem(plain, "k", "k.cu").unwrap();
        assert!(e.contains("extern \"C\""), "{e}");
        let e = kernel_problem(SRC, "_Z8copy_vecPKfPfi", "k.cu").unwrap();
        assert!(
            e.contains("mangled") && e.contains("kernel: copy_vec"),
            "{e}"
        );
        let e = kernel_problem("int main() {}", "main", "k.cu").unwrap();
        assert!(e.contains("no __global__ function"), "{e}");
    }

    #[test]
    fn demangles_the_base_name() {
        assert_eq!(demangled_base("_Z11read_stridePfi"), Some("read_stride"));
        assert_eq!(demangled_base("read_stride"), None);
        assert_eq!(demangled_base("_Z99x"), None);
    }
}
