// wrong: [slow-variant timing] coalesced 16-byte loads and the sectors of the solution, but only half of each block loads, one load at a time with no unrolling: too few bytes in flight to keep the memory busy
// caught by: yours faster than solution by >= 0.93x
// on: gpu - its requests and sectors are the solution's; only the time shows how few bytes are in flight
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

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    const unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
    // 16-byte loads, grid-stride, but only the first half of each block loads, one load
    // at a time: each sum waits for its load before the next load is issued.
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (threadIdx.x < BLOCK / 2) {
        const unsigned t2 = blockIdx.x * (BLOCK / 2) + threadIdx.x, s2 = gridDim.x * (BLOCK / 2);
#pragma unroll 1
        for (unsigned i = t2; i < n / 4; i += s2) {
            const uint4 v = in4[i];
            a0 = a0 + v.x + v.y + v.z + v.w;
        }
    }
    // The last n % 4 words make no whole uint4.
    if (tid < n % 4) a0 += in[n / 4 * 4 + tid];
    finish(block_sum(a0 + a1 + a2 + a3, warp_sums), partial, out);
}
