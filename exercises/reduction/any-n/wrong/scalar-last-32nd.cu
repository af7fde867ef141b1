// wrong: [token use] reads the first 31/32 of the words in 16-byte loads and the last 1/32 as 4-byte loads, at every n: every word once, coalesced, and a per-request mean of 14.6 sectors against 16 (0.91x, inside sectors_per_request's 0.9x bar), a few percent slower
// caught by: yours global.sectors_per_request at least 0.97x vectorised
// on: cpu

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
    // The first 31/32 of the quads as 16-byte loads, the rest as plain words.
    const unsigned quads = n / 4 - n / 4 / 32;
#pragma unroll 4
    for (unsigned i = tid; i < quads; i += stride) {
        const uint4 v = in4[i];
        a0 += v.x;
        a1 += v.y;
        a2 += v.z;
        a3 += v.w;
    }
    for (unsigned i = quads * 4 + tid; i < n; i += stride) a0 += in[i];
    finish(block_sum(a0 + a1 + a2 + a3, warp_sums), partial, out);
}
