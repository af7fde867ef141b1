// A histogram of a picture's shades: how many of its n pixels have each of 256 shades.
// WAY 0: every pixel's thread adds 1 to a counter in global memory (atomicAdd).
// WAY 1: privatised: each block counts its pixels in its own 256 counters in shared memory,
//        then adds each counter to global memory once.
// WAY 2: privatised and warp-aggregated: the lanes of a warp that hold one shade find each
//        other (__match_any_sync), and one of them adds their number for all.
// PICTURE 0 is a gradient (neighbouring pixels share a shade), PICTURE 1 the same pixels
// shuffled (noise): both have the same histogram, so every variant gives the same output.

#ifndef WAY
#define WAY 0
#endif
#ifndef PICTURE
#define PICTURE 0
#endif
#define BINS 256

// Pixel p's shade, p from 0 to n - 1. The gradient: p * 256 / n. The noise: the shade of
// the pixel p * 2654435761 modulo n, which visits every pixel once (the multiplier is odd
// and shares no factor with n), so both pictures hold the same pixels in another order.
__device__ unsigned shade(unsigned p, unsigned n)
{
#if PICTURE == 1
    p = (unsigned)((p * 2654435761ull) % n);
#endif
    return (unsigned)((p * (unsigned long long)BINS) / n);
}

// How many blocks have added their counts in this launch.
__device__ unsigned blocks_done = 0;

// The last block to finish moves the counts into the histogram and leaves them zero for the
// next launch (every block's atomics are done at the GPU's L2 before its count goes up).
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

extern "C" __global__ void histogram(const unsigned* __restrict__ pixels, unsigned* counts,
                                     unsigned* hist, unsigned n)
{
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
#if WAY == 0
    for (unsigned i = first; i < n; i += stride) atomicAdd(&counts[shade(pixels[i], n)], 1);
#else
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (unsigned i = first; i < n; i += stride) {
        const unsigned s = shade(pixels[i], n);
#if WAY == 1
        atomicAdd(&bins[s], 1);
#else
        const unsigned peers = __match_any_sync(__activemask(), s);
        const unsigned leader = 31 - __clz(peers);
        if ((threadIdx.x & 31) == leader) atomicAdd(&bins[s], __popc(peers));
#endif
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b] != 0) atomicAdd(&counts[b], bins[b]);
#endif
    finish(counts, hist);
}
