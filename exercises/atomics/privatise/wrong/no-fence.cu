// wrong: [grid race] counts right, but finish() loses its __threadfence(): a block's adds into the global counters are not released before its ticket, so the last block, which takes the counters by exchanges, may take them before another block's adds land
// caught by: yours global.unfenced_handover_words == 0
// on: cpu
// A histogram of a picture's shades: how many of its n pixels have each of 256 shades.
// Each block counts its pixels in 256 counters of its own in shared memory, then adds all
// 256 to the global ones, zero or not: 8 global requests a block (a warp's 32 lanes take
// 32 counters at once), however few shades its pixels have.

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
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[shade(pixels[i], n)], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
