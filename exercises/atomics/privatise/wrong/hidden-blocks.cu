// wrong: [hidden trace] in grids wider than 16 blocks, every 16th block adds each pixel to global memory as the starter does, unprivatised
// caught by: yours global.atomic_requests at most 1.1x solution
// on: gpu - the CPU traces the lesson's few blocks at the lesson's size, and the bad blocks are one in 8 or 16 of a grid wider than the CPU's other sizes; a GPU check traces 64 clusters drawn anywhere
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
    __shared__ unsigned bins[BINS];
    const bool plain = gridDim.x > 16 && (blockIdx.x & 15) == 9;
    const unsigned stride = gridDim.x * blockDim.x;
    if (plain) {
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
            atomicAdd(&counts[shade(pixels[i], n)], 1);
    } else {
        for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
        __syncthreads();
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
            atomicAdd(&bins[shade(pixels[i], n)], 1);
        __syncthreads();
        for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&counts[b], bins[b]);
    }
    finish(counts, hist);
}
