// wrong: [grid race] the last block to take a ticket adds up partial[], but no block fences its partial before its ticket (no __threadfence()): the last block may read a partial whose store is not yet visible, and sum a stale word
// caught by: yours global.unfenced_handover_words == 0
// on: cpu
// The sum of n unsigned words, into out[0], for any n. The grid is fixed (the lesson's 8192
// blocks of BLOCK = 256 threads), far fewer threads than words. finish() adds a block's
// total to the grid's, and the last block to finish writes it out; unsigned sums wrap the
// same way in any order.

#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word: the count in
// bits 50 and up, the sum below.
__device__ unsigned finish_count = 0;
__device__ unsigned blocks_done = 0;

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

__device__ void finish(unsigned total, unsigned* partial, unsigned* out, unsigned* warp_sums)
{
    int last = 0;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = total;
        last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
    }
    if (!__syncthreads_or(last)) return;
    unsigned s = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) s += ((volatile unsigned*)partial)[b];
    s = block_sum(s, warp_sums);
    if (threadIdx.x == 0) { *out = s; finish_count = 0; }
}

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    const unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
    // 16-byte loads, grid-stride (a warp reads 512 neighbouring bytes per step), into four
    // independent sums so that several loads are in flight per thread.
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma unroll 4
    for (unsigned i = tid; i < n / 4; i += stride) {
        const uint4 v = in4[i];
        a0 += v.x;
        a1 += v.y;
        a2 += v.z;
        a3 += v.w;
    }
    // The last n % 4 words make no whole uint4.
    if (tid < n % 4) a0 += in[n / 4 * 4 + tid];
    finish(block_sum(a0 + a1 + a2 + a3, warp_sums), partial, out, warp_sums);
}
