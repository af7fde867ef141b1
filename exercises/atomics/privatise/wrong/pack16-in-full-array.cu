// wrong: [unchecked structure] counters packed two to a word in 16 bits (they carry into each other once a block sees a shade 65536 times, which no checked size makes happen), in a 256-word array of which 128 words are used, so the shared size is the solution's and a warp's lanes meet on a word only 1.06x as often
// caught by: yours atomic.lanes_per_address at most 1.04x solution
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
    for (int b = threadIdx.x; b < BINS / 2; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    {
        const unsigned s = shade(pixels[i], n);
        atomicAdd(&bins[s >> 1], 1u << (16 * (s & 1)));   // two 16-bit counters a word
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        const unsigned v = (bins[b >> 1] >> (16 * (b & 1))) & 65535u;
        if (v != 0) atomicAdd(&counts[b], v);
    }
    finish(counts, hist);
}
