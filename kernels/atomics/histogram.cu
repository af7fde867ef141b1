// A histogram of a picture's shades: how many of its n pixels have each of 256 shades.
// A pixel's shade is its low 8 bits (the lesson's pictures hold shades 0-255; an exercise's
// random pixels stay within the counters), so a pixel costs a load, an AND and its atomic.
// WAY 0: every pixel's thread adds 1 to a counter in global memory (atomicAdd).
// WAY 1: privatised: each block counts its pixels in its own 256 counters in shared memory,
//        then adds each counter to global memory once.
// WAY 2: privatised and warp-aggregated: the lanes of a warp that hold one shade find each
//        other (__match_any_sync), and one of them adds their number for all.
// WAY 3: warp-aggregated in global memory: as WAY 0, but one lane of each group of lanes
//        with one shade adds the group's number to the global counter.
// The lesson passes a gradient (neighbouring pixels share a shade) or the same pixels
// shuffled (noise): both have the same histogram, so every variant gives the same output.
// SCOPE (WAY 0 only): whom a pixel's global atomic is promised to: 1, the device
// (atomicAdd); 2, the system (atomicAdd_system: the host and other GPUs too). (0, the block,
// atomicAdd_block, would not do here: every block adds to the same global counters.)

#ifndef WAY
#define WAY 0
#endif
#ifndef SCOPE
#define SCOPE 1
#endif
#if SCOPE == 0
#define ADD_PIXEL atomicAdd_block
#elif SCOPE == 2
#define ADD_PIXEL atomicAdd_system
#else
#define ADD_PIXEL atomicAdd
#endif
#define BINS 256

__device__ __forceinline__ unsigned shade(unsigned pixel)
{
    return pixel & (BINS - 1);
}

// How many blocks have added their counts in this launch.
__device__ unsigned blocks_done = 0;

// The last block to finish moves the counts into the histogram and leaves them zero for the
// next launch. Each block's thread 0 counts its block in: the fence makes the block's
// atomics (done at the GPU's L2) seen by every block before its count goes up, so the block
// that brings the count to gridDim.x reads every block's additions.
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

// The lanes of the warp with shade s add their number to *counter, through one lane.
__device__ void add_for_the_warp(unsigned* counter, unsigned s)
{
    const unsigned peers = __match_any_sync(__activemask(), s);
    const unsigned leader = 31 - __clz(peers);
    if ((threadIdx.x & 31) == leader) atomicAdd(counter, __popc(peers));
}

extern "C" __global__ void histogram(const unsigned* __restrict__ pixels, unsigned* counts,
                                     unsigned* hist, unsigned n)
{
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
#if WAY == 0
    for (unsigned i = first; i < n; i += stride) ADD_PIXEL(&counts[shade(pixels[i])], 1u);
#elif WAY == 3
    for (unsigned i = first; i < n; i += stride) {
        const unsigned s = shade(pixels[i]);
        add_for_the_warp(&counts[s], s);
    }
#else
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    for (unsigned i = first; i < n; i += stride) {
        const unsigned s = shade(pixels[i]);
#if WAY == 1
        atomicAdd(&bins[s], 1);
#else
        add_for_the_warp(&bins[s], s);
#endif
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b] != 0) atomicAdd(&counts[b], bins[b]);
#endif
    finish(counts, hist);
}
