// wrong: [slow-variant timing] reads each row once more before its passes, to bring it into the L2: right, rows outer, but five reads of every element where four are asked
// caught by: yours global.sectors at most 1.1x solution
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
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols) return;
    unsigned sum = 0;
    for (int k = 0; k < rows; ++k) {
        const uint4* row = data + (size_t)k * cols;
        // A touch of the thread's own element, meant to have the row waiting in the L2;
        // volatile, so the compiler keeps the reads though their values are not used.
        const volatile unsigned* w = (const volatile unsigned*)(row + t);
        (void)w[0]; (void)w[1]; (void)w[2]; (void)w[3];
        int c = t;
        for (int p = 0; p < passes; ++p) {
            sum += (unsigned)(p + 1) * words(__ldcg(row + c));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    out[t] = sum;
}
