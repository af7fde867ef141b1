// wrong: [off the point] spreads each block over the whole row (thread t works on column threadIdx.x * gridDim.x + blockIdx.x): right and rows outer, but a warp's lanes land gridDim.x uint4s apart, one sector each
// caught by: yours global.sectors_per_request at most 1.01x solution
// on: cpu
// out[t] = sum over p < passes, k < rows of (p + 1) * words(data[k * cols + (t + SHIFT * p) % cols])

#define SHIFT 256

__device__ __forceinline__ unsigned words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

extern "C" __global__ void sweep_passes(const uint4* __restrict__ data,
                                        unsigned* __restrict__ out, int cols, int rows,
                                        int passes)
{
    // Every column still belongs to exactly one thread, whatever the grid.
    const int t = threadIdx.x * gridDim.x + blockIdx.x;
    if (t >= cols) return;
    unsigned sum = 0;
    for (int k = 0; k < rows; ++k) {
        const uint4* row = data + (size_t)k * cols;
        int c = t;
        for (int p = 0; p < passes; ++p) {
            sum += (unsigned)(p + 1) * words(__ldcg(row + c));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    out[t] = sum;
}
