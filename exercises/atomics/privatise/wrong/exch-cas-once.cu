// wrong: [block race] warp-aggregated, each group's leader takes its shade's shared count out with atomicExch(0) and puts it back plus the group's pixels with one atomicCAS(0, old + k), never retried: where another warp takes and puts between the two, the swap fails on a GPU and both groups' pixels are lost. Every access is atomic, so no race shows; the interpreter ran a warp's two atomics with no other warp between them, so the swap never failed there
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
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned s = shade(pixels[i], n);
        const unsigned peers = __match_any_sync(__activemask(), s);
        if ((threadIdx.x & 31) == 31 - __clz(peers)) {
            unsigned old = atomicExch(&bins[s], 0);        // take the count out
            atomicCAS(&bins[s], 0, old + __popc(peers)); // put it back, plus ours: no retry
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b]) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
