// wrong: [one size] does all the passes over tiles of four rows at a time but forgets the rows left over when rows is not a multiple of four
// caught by: correct
// on: cpu
// out[t] = sum over p < passes, k < rows of (p + 1) * words(data[k * cols + (t + SHIFT * p) % cols])

#define SHIFT 256

__device__ __forceinline__ unsigned words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

#define TILE 4

extern "C" __global__ void sweep_passes(const uint4* __restrict__ data,
                                        unsigned* __restrict__ out, int cols, int rows,
                                        int passes)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols) return;
    unsigned sum = 0;
    // 256 rows at the lesson's size, so the tiles cover them all there, and only there.
    for (int k0 = 0; k0 + TILE <= rows; k0 += TILE) {
        int c = t;
        for (int p = 0; p < passes; ++p) {
            for (int k = k0; k < k0 + TILE; ++k)
                sum += (unsigned)(p + 1) * words(__ldcg(data + (size_t)k * cols + c));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    out[t] = sum;
}
