// wrong: [block race] counts in shared memory as asked, then merges each counter into global memory with a plain load and an atomicExch of the sum: a read-modify-write that is not atomic, so blocks merging at once lose each other's counts on a GPU; the interpreter runs blocks one after another and sums right. An exchange writes what it is given whatever the word held, so it counts as a store where two blocks write one word.
// caught by: yours global.cross_block_words == 0
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
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&bins[shade(pixels[i], n)], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned old = ((volatile unsigned*)counts)[b];
        atomicExch(&counts[b], old + bins[b]);
    }
    finish(counts, hist);
}
