// wrong: [off the point] the solution, but one warp in four reads each of its quads a second time (ld.global.cg) and adds the difference (0) to its sums: a quarter more global sectors, every load's value reaching the output, and under the sector total's bar
// caught by: yours global.reread_pct <= 1
// on: cpu
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
    // 16-byte loads, grid-stride (a warp reads 512 neighbouring bytes per step), into four
    // independent sums so that several loads are in flight per thread.
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma unroll 4
    for (unsigned i = tid; i < n / 4; i += stride) {
        const uint4 v = in4[i];
        if ((threadIdx.x / 32) % 4 == 0) {
            // "check" the load: read the quad again (past L1) and fold the difference in
            unsigned r0, r1, r2, r3;
            asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                         : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "l"(in4 + i) : "memory");
            a0 += r0 - v.x; a1 += r1 - v.y; a2 += r2 - v.z; a3 += r3 - v.w;
        }
        a0 += v.x;
        a1 += v.y;
        a2 += v.z;
        a3 += v.w;
    }
    // The last n % 4 words make no whole uint4.
    if (tid < n % 4) a0 += in[n / 4 * 4 + tid];
    finish(block_sum(a0 + a1 + a2 + a3, warp_sums), partial, out);
}
