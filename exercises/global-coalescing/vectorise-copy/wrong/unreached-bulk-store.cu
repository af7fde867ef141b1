// wrong: [hidden trace] the starter's 4-byte copy unchanged, with a TMA bulk store the CPU interpreter does not model behind a branch no thread takes (n < 0): when the interpreter refused a kernel it could not read whole, every check, the output's too, was left to a GPU and the starter passed everything the CPU judged (a red team's); an instruction is now refused only where a lane runs it
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu
extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float buf[32];
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads)
        out[i] = in[i];
    if (n < 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" :: "l"(out), "r"((unsigned)__cvta_generic_to_shared(buf)), "r"(128) : "memory");
        asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    }
}
