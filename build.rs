// The lessons, kernels and exercises are bundled into the binary; a file added, removed or
// changed under them must rebuild it, which the bundling macro alone does not notice.
fn main() {
    println!("cargo:rerun-if-changed=lessons");
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=exercises");
}
