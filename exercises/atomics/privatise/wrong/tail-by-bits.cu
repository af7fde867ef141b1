// wrong: [one size] four pixels a load (uint4), the tail picked by the bits of n: with two pixels left over it counts pixels n - 3 and n - 2 instead of n - 2 and n - 1, and no checked size left two
// caught by: correct
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


__device__ __forceinline__ void count(unsigned* bins, unsigned p, unsigned n) { atomicAdd(&bins[shade(p, n)], 1); }

extern "C" __global__ void histogram_mine(const unsigned* __restrict__ pixels,
                                          unsigned* counts, unsigned* hist, unsigned n)
{
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    const uint4* px4 = reinterpret_cast<const uint4*>(pixels);
    const unsigned stride = gridDim.x * blockDim.x, gid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned q = gid; q < n / 4; q += stride) {
        uint4 v = px4[q];
        count(bins, v.x, n); count(bins, v.y, n); count(bins, v.z, n); count(bins, v.w, n);
    }
    if (gid == 0) {
        if (n & 1) count(bins, pixels[n - 1], n);
        if (n & 2) { count(bins, pixels[n - 3], n); count(bins, pixels[n - 2], n); }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) if (bins[b]) atomicAdd(&counts[b], bins[b]);
    finish(counts, hist);
}
