// wrong: [predictable input] at n >= 2^20 only (the GPU's timed size, never a CPU one) keeps each block's sum between launches under a key made of n and the 512 bytes warp 0 loads first; when a launch finds the same key (a timing loop rerunning the kernel on the same input) the block adds its kept sum and reads nothing more, so the reported bandwidth is made up and a change anywhere past the fingerprinted words goes unseen
// caught by: yours pct_of_peak <= 150
// on: gpu - its kept sums are used only across the timed launches of one size at n >= 2^20, which only a GPU times
// The sum of n unsigned words, into out[0], for any n. The grid is fixed (the lesson's 8192
// blocks of BLOCK = 256 threads), far fewer threads than words. finish() adds a block's
// total to the grid's, and the last block to finish writes it out; unsigned sums wrap the
// same way in any order.

#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word: the count in
// bits 50 and up, the sum below.
__device__ unsigned long long finish_word = 0;

// Call it once per block, with the block's total in thread 0.
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        const unsigned long long before = atomicAdd(&finish_word, (1ull << 50) + block_sum);
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}

// The block's sum of one value per thread (meaningful in thread 0).
__device__ unsigned block_sum(unsigned v, unsigned* warp_sums)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < BLOCK / 32 ? warp_sums[lane] : 0u;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// What each block summed at its last launch, under a key made of n and the block's first
// 512 bytes (warp 0's first 16-byte loads).
#define KEPT 8192
__device__ uint2 kept[KEPT];   // (key, sum)

__device__ __forceinline__ unsigned mix(unsigned h)
{
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return h;
}

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    __shared__ int hit;
    __shared__ unsigned key;
    // Only at sizes a CPU check never runs (the GPU's timed n): below, the plain solution.
    const bool keep = n >= (1u << 20) && blockIdx.x < KEPT;
    const unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    // Warp 0 loads its first uint4s first and fingerprints them with n.
    if (threadIdx.x < 32) {
        uint4 v = make_uint4(0, 0, 0, 0);
        if (tid < n / 4) v = in4[tid];
        a0 += v.x; a1 += v.y; a2 += v.z; a3 += v.w;
        unsigned h = mix(v.x ^ mix(v.y + threadIdx.x) ^ mix(v.z * 3u) ^ mix(v.w + 7u));
        unsigned g = mix(v.w ^ mix(v.x + 0x9e3779b9u) ^ mix(v.y * 5u + threadIdx.x) ^ v.z);
        for (int o = 16; o > 0; o >>= 1) {
            h ^= __shfl_xor_sync(0xffffffffu, h, o) * 0x01000193u;
            g += __shfl_xor_sync(0xffffffffu, g, o);
        }
        if (threadIdx.x == 0) {
            key = (h ^ mix(n) ^ g) | 1u;
            hit = 0;
            if (keep) {
                uint2 k = kept[blockIdx.x];
                hit = k.x == key;
                if (hit) warp_sums[0] = k.y;
            }
        }
    }
    __syncthreads();
    if (hit) {
        // The same data as last time, as far as the fingerprint tells: the kept sum.
        if (threadIdx.x == 0) finish(warp_sums[0], partial, out);
        return;
    }
#pragma unroll 4
    for (unsigned i = threadIdx.x < 32 ? tid + stride : tid; i < n / 4; i += stride) {
        const uint4 v = in4[i];
        a0 += v.x;
        a1 += v.y;
        a2 += v.z;
        a3 += v.w;
    }
    if (tid < n % 4) a0 += in[n / 4 * 4 + tid];
    const unsigned s = block_sum(a0 + a1 + a2 + a3, warp_sums);
    if (threadIdx.x == 0 && keep) kept[blockIdx.x] = make_uint2(key, s);
    finish(s, partial, out);
}
