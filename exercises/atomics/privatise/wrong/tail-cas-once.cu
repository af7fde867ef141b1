// wrong: [one size] full grid passes count with shared atomicAdd; only the ragged last pass (n not a multiple of the grid's stride) is warp-aggregated, each leader adding its count with one atomicCAS never retried: two warps' leaders on a shade there lose a count on a GPU. At the lesson's CPU size there is no ragged pass
// caught by: correct
// on: cpu
#define BINS 256
__device__ unsigned shade(unsigned p, unsigned n) { return (p >> 8) & (BINS - 1); }
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
    __shared__ unsigned bins[BINS];
    
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned full = n - n % stride;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < full; i += stride)
        atomicAdd(&bins[shade(pixels[i], n)], 1);
    const unsigned i = full + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const unsigned s = shade(pixels[i], n);
        const unsigned peers = __match_any_sync(__activemask(), s);
        if ((threadIdx.x & 31) == 31 - __clz(peers)) {
            const unsigned c = __popc(peers);
            const unsigned old = atomicAdd(&bins[s], 0u);
            atomicCAS(&bins[s], old, old + c);
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        if (bins[b]) atomicAdd(&counts[b], bins[b]);
    }
    finish(counts, hist);
}
