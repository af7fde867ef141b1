// wrong: [warp race] sums each warp's 32 values in shared memory the warp-synchronous way with no __syncwarp() between the steps, every store a st.release and every load a ld.acquire: strong accesses, yet nothing makes a lane see the word another lane wrote
// caught by: race
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
__device__ __forceinline__ void st_rel(volatile unsigned* p, unsigned v)
{ asm volatile("st.release.cta.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared((const void*)p)), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned ld_acq(volatile unsigned* p)
{ unsigned v; asm volatile("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared((const void*)p)) : "memory"); return v; }
__device__ unsigned block_sum(unsigned v, volatile unsigned* s)
{
    const unsigned t = threadIdx.x, lane = t % 32;
    st_rel(&s[t], v);
    // Each warp halves its own 32 words five times, release stores and acquire loads, no
    // __syncwarp() between the steps.
    for (unsigned d = 16; d > 0; d >>= 1)
        if (lane < d) st_rel(&s[t], ld_acq(&s[t]) + ld_acq(&s[t + d]));
    // Warp 0 reads the other warps' sums: that needs the whole block.
    __syncthreads();
    unsigned total = 0;
    if (t == 0)
        for (unsigned w = 0; w < BLOCK / 32; ++w) total += s[w * 32];
    return total;
}

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned sums[BLOCK];
    const unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
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
    if (tid < n % 4) a0 += in[n / 4 * 4 + tid];
    finish(block_sum(a0 + a1 + a2 + a3, sums), partial, out);
}
