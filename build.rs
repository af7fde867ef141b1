// The lessons and kernels are bundled into the binary; a lesson file added or removed must
// rebuild it, which the bundling macro alone does not notice.
fn main() {
    println!("cargo:rerun-if-changed=lessons");
    println!("cargo:rerun-if-changed=kernels");
}
