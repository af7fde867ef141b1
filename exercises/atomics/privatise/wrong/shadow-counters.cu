// wrong: [token use] counts each warp's pixels in per-warp counters with plain adds through a leader (__match_any_sync), and adds 1 a pixel with atomicAdd to a second set of shared counters that nothing reads, so the shared atomics per pixel match the solution's while none of them reaches the histogram.
// caught by: yours shared.atomics_feed_output_pct == 100
// on: cpu
#define BINS 256

// A pixel is a word; its shade is its second byte (bits 8-15). The picture is fresh random
// pixels every run, so nothing about it is known before it is read.
__device__ unsigned shade(unsigned p, unsigned n)
{
    return (p >> 8) & (BINS - 1);
}

// How many blocks have added their counts in this launch.
__device__ unsigned blocks_done = 0;

// The last block to finish moves the counts into the histogram and leaves them zero for the
// next launch. Leave this as it is.
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
    constexpr int WARPS = 8;
    __shared__ unsigned per_warp[WARPS][BINS];
    __shared__ unsigned bins[BINS];
    const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __shared__ unsigned shadow[BINS];
    for (int b = threadIdx.x; b < WARPS * BINS; b += blockDim.x) per_warp[b / BINS][b % BINS] = 0;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = shadow[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned s = shade(pixels[i], n);
        atomicAdd(&shadow[s], 1u);   // for show: one shared atomic a pixel, into counters nobody reads
        const unsigned peers = __match_any_sync(__activemask(), s);
        if (lane == 31 - __clz(peers)) per_warp[warp][s] += __popc(peers);
        __syncwarp(__activemask());
    }
    __syncthreads();
    for (int b = lane; b < BINS; b += 32)
        if (per_warp[warp][b] != 0) atomicAdd(&bins[b], per_warp[warp][b]);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
