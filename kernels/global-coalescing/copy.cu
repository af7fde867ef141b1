// Copy kernels for the coalescing lesson. Every kernel here writes out[e] = in[e] for every
// e in 0..n-1; they differ only in which thread handles which element, so one CPU copy
// checks them all.

#ifndef STRIDE
#define STRIDE 1
#endif

// One element per thread. Thread t = q * m + r (m = n / STRIDE, r < m) takes element
// r * STRIDE + q. That is a permutation of 0..n-1 when STRIDE divides n, and it puts
// neighbouring lanes of a warp STRIDE floats apart, for the read and for the write.
extern "C" __global__ void copy_strided(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (unsigned)n) return;
    unsigned m = (unsigned)n / STRIDE;
    unsigned e = (t % m) * STRIDE + t / m;
    out[e] = in[e];
}

// 16 bytes per lane per access, and a fixed grid that walks the array: a quarter of the
// instructions, and each thread keeps loads in flight while the grid stays resident.
// Needs n % 4 == 0.
extern "C" __global__ void copy_vec4(const float4* __restrict__ in,
                                     float4* __restrict__ out, int n)
{
    int n4 = n / 4;
    int step = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += step)
        out[i] = in[i];
}
