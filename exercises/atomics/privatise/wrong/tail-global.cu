// wrong: [token use] counts the full passes of the grid-stride loop in shared memory and the ragged last pass straight into the global counters, an atomic a pixel: at n = 70001 on the CPU's grid its 369 pixels made 1.09x the solution's global atomics, inside the bar (a red team's, passing every CPU check); n = 19385 leaves 3001
// caught by: yours global.atomic_requests at most 1.1x solution
// on: cpu
// A histogram of a picture's shades: how many of its n pixels have each of 256 shades.
// Every pixel's thread adds 1 to a counter in global memory. Make each block count in
// shared memory first (the task says how).

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
    const unsigned stride = gridDim.x * blockDim.x;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned full = n / stride * stride;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < full; i += stride)
        atomicAdd(&bins[shade(pixels[i], n)], 1);
    for (unsigned i = full + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&counts[shade(pixels[i], n)], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b]) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
