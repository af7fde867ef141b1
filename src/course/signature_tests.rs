use super::*;

fn kinds(sig: &Signature) -> Vec<ParamKind> {
    sig.params.iter().map(|p| p.kind).collect()
}

#[test]
fn comments_and_strings_are_blanked_in_place() {
    let src = "a // b(\n/* c( */ d \"e(\" extern \"C\" 'f' \"g\\\"(\"\n";
    let code = code_only(src);
    assert_eq!(code.len(), src.len());
    assert_eq!(code.lines().count(), src.lines().count());
    for gone in ["b(", "c(", "e("] {
        assert!(!code.contains(gone), "{gone} in {code}");
    }
    assert!(code.contains("extern \"C\""), "{code}");
    assert!(!code.contains('f') && !code.contains('g'), "{code}");
    assert_eq!(code_only("/*/ x */y"), "        y");
}

#[test]
fn reads_parameters_and_their_kinds() {
    let src = "extern \"C\" __global__ void copy(const float* __restrict__ in, float *out,\n\
               int n, unsigned long long m, double a, T t, float b[], size_t s) {}\n";
    let sig = find(src, "copy").unwrap();
    assert!(sig.extern_c);
    assert_eq!(sig.params[0].text, "const float* __restrict__ in");
    use ParamKind::*;
    assert_eq!(
        kinds(&sig),
        [
            Pointer,
            Pointer,
            Int { bytes: 4 },
            Int { bytes: 8 },
            Float { bytes: 8 },
            Unknown,
            Pointer,
            Int { bytes: 8 }
        ]
    );
    assert_eq!(kind_of("unsigned int"), Int { bytes: 4 });
    assert_eq!(kind_of("short int x"), Int { bytes: 2 });
    assert_eq!(kind_of("int& r"), Unknown);
    assert_eq!(kind_of("int n = 3"), Int { bytes: 4 });
}

#[test]
fn finds_kernels_in_code_only() {
    let src = "// __global__ void a(int x)\n\
               /* extern \"C\" */ __global__ void __launch_bounds__(256, 2) b(void) {}\n\
               extern \"C\" {\n  __device__ int helper(int x) { return x; }\n\
               __global__ void c(int x) { printf(\"__global__ void d()\"); }\n}\n\
               template <typename T> __global__ void e(T* x);\n\
               template __global__ void e<float>(float*);\n";
    let all = global_functions(src);
    let names: Vec<(&str, bool)> = all.iter().map(|s| (s.name.as_str(), s.extern_c)).collect();
    assert_eq!(names, [("b", false), ("c", true), ("e", false)]);
    assert!(all[0].params.is_empty());
    assert_eq!(all[1].params.len(), 1);
    assert_eq!(all[2].params[0].kind, ParamKind::Pointer);
}

#[test]
fn a_prototype_declared_extern_c_makes_the_definition_unmangled() {
    let src = "extern \"C\" __global__ void k(int n);\n__global__ void k(int n) {}\n";
    assert!(find(src, "k").unwrap().extern_c);
    assert!(!find("__global__ void k(int n) {}", "k").unwrap().extern_c);
    assert_eq!(find("__global__ void k(int n) {}", "j"), None);
}
