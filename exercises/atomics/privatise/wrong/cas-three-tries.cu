// wrong: [block race] warp-aggregated shared counting by atomicCAS with a bounded retry: a first guess of 0, at most two retries with the value returned, then it gives up: with more than three warps' leaders on one counter the count is lost on a GPU
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
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned s = shade(pixels[i], n);
        const unsigned peers = __match_any_sync(__activemask(), s);
        if ((threadIdx.x & 31) == 31 - __clz(peers)) {
            const unsigned c = __popc(peers);
            unsigned g = atomicCAS(&bins[s], 0u, c);
            if (g != 0u) {
                unsigned h = atomicCAS(&bins[s], g, g + c);
                if (h != g) atomicCAS(&bins[s], h, h + c);
            }
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b]) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
