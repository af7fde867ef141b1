// wrong: [token use] takes rows outer for passes 0 and 1 only, then makes passes 2 and 3 over the whole set one after another: half the reads still come from device memory
// caught by: yours faster than solution by >= 0.87x
// on: gpu - which reads the L2 serves shows only in the time
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
    const int early = passes < 2 ? passes : 2;
    unsigned sum = 0;
    for (int k = 0; k < rows; ++k) {
        const uint4* row = data + (size_t)k * cols;
        int c = t;
        for (int p = 0; p < early; ++p) {
            sum += (unsigned)(p + 1) * words(__ldcg(row + c));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    int c = (int)(((long long)t + (long long)SHIFT * early) % cols);
    for (int p = early; p < passes; ++p) {
        for (int k = 0; k < rows; ++k)
            sum += (unsigned)(p + 1) * words(__ldcg(data + (size_t)k * cols + c));
        c += SHIFT;
        if (c >= cols) c -= cols;
    }
    out[t] = sum;
}
