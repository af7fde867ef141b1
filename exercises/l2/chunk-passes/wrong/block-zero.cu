// wrong: [hidden trace] block 0 keeps its lanes on neighbouring columns; every other block spreads its lanes over the rest of the row, one sector per lane, where a trace of block 0 alone would not look
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
    // Block 0 takes columns 0..255; block b > 0 takes 256 + threadIdx.x * (gridDim.x - 1)
    // + (b - 1): every column once, but lanes gridDim.x - 1 columns apart.
    const int t = blockIdx.x == 0
        ? (int)threadIdx.x
        : (int)(blockDim.x + threadIdx.x * (gridDim.x - 1) + (blockIdx.x - 1));
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
