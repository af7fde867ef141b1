// wrong: [grid race] counts in shared memory as asked, then merges each counter with a plain load of the global one and one atomicCAS(old, old + c), never retried: blocks merging one counter at once lose all but one block's counts on a GPU. The load is plain and the write atomic, so no word shows as stored by two blocks; the interpreter ran one block after another and every swap matched
// caught by: correct
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
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const unsigned stride = gridDim.x * blockDim.x;
    const unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
    const uint4* q = reinterpret_cast<const uint4*>(pixels);
    const unsigned nq = n / 4;
    for (unsigned i = first; i < nq; i += stride) {
        uint4 v = q[i];
        atomicAdd_block(&bins[shade(v.x, n)], 1u);
        atomicAdd_block(&bins[shade(v.y, n)], 1u);
        atomicAdd_block(&bins[shade(v.z, n)], 1u);
        atomicAdd_block(&bins[shade(v.w, n)], 1u);
    }
    for (unsigned i = nq * 4 + first; i < n; i += stride)
        atomicAdd_block(&bins[shade(pixels[i], n)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned c = bins[b];
        if (c) {
            const unsigned old = *(volatile unsigned*)&counts[b];
            atomicCAS(&counts[b], old, old + c);
        }
    }
    finish(counts, hist);
}
