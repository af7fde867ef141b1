// wrong: [predictable input] takes the picture for the lesson's gradient, where pixel i holds i, and counts the shade of each index without reading a pixel: right on that fill, wrong on any other
// caught by: correct
// on: cpu
// A histogram of a picture's shades: how many of its n pixels have each of 256 shades.
// Each block counts its pixels in 256 counters of its own in shared memory, then adds each
// counter that is not zero to the global ones once.

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
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    // Pixel i holds i: its shade follows from the index, and the load can go.
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[shade(i, n)], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b] != 0) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
