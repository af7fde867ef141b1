// wrong: [predictable input] reads every element once and adds the column sums with atomics onto the output's known poison
// caught by: yours global.sectors at least 0.9x solution
// on: cpu
#define SHIFT 256

__device__ __forceinline__ unsigned words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

extern "C" __global__ void sweep_passes(const uint4* __restrict__ data,
                                        unsigned* __restrict__ out, int cols, int rows,
                                        int passes)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols) return;
    unsigned s = 0;
    for (int k = 0; k < rows; ++k) s += words(data[(size_t)k * cols + t]);
    for (int p = 0; p < passes; ++p) {
        long long d = ((long long)t - (long long)SHIFT * p) % cols;
        if (d < 0) d += cols;
        unsigned v = (unsigned)(p + 1) * s;
        if (p == 0) v -= 0xDEADBEEFu;   // the poison the output starts from
        atomicAdd(&out[d], v);
    }
}
