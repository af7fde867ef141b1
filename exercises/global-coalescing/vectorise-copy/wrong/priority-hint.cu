// wrong: [hidden trace] the starter's 4-byte copy unchanged, with each lane's line given a normal standing in the L2 by `applypriority`: while the CPU interpreter refused that instruction, every check was left to a GPU and the starter failed none the CPU judged (a red team's); a hint that changes no value now runs there as nothing
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu
// Copy `in` to `out`: n floats, one float per lane per step of a grid-stride loop.

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) {
        asm volatile("applypriority.global.L2::evict_normal [%0], 128;" :: "l"(in + i) : "memory");
        out[i] = in[i];
    }
}
