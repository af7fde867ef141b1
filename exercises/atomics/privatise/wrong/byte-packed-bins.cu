// wrong: [predictable input] packs the 256 shared counters four to a word, 8 bits each, so a block that sees one shade 256 times carries into the next shade's counter; fresh random pixels give a block each shade a few dozen times, a dark picture far more
// caught by: yours smem at least 0.9x solution
// on: cpu

#define BINS 256

__device__ unsigned shade(unsigned p, unsigned n)
{
    return (p >> 8) & (BINS - 1);
}

__device__ unsigned blocks_done = 0;

__device__ void finish(unsigned* counts, unsigned* hist)
{
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&blocks_done, 1) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = atomicExch(&counts[b], 0);
    if (threadIdx.x == 0) blocks_done = 0;
}

extern "C" __global__ void histogram_mine(const unsigned* __restrict__ pixels,
                                          unsigned* counts, unsigned* hist, unsigned n)
{
    __shared__ unsigned bins[BINS / 4];
    for (int b = threadIdx.x; b < BINS / 4; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned s = shade(pixels[i], n);
        atomicAdd(&bins[s >> 2], 1u << (8 * (s & 3)));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&counts[b], (bins[b >> 2] >> (8 * (b & 3))) & 255u);
    finish(counts, hist);
}
