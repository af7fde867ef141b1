// The sum of n unsigned words, into out[0], for any n, on the lesson's fixed grid.
// Another shape: each thread issues UNROLL 16-byte loads a grid's width apart before it
// adds any of them, so they wait for memory together; what makes no whole group goes one
// load at a time, and the last n % 4 words one word at a time.

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

#define UNROLL 4

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    const unsigned n4 = n / 4, step = gridDim.x * BLOCK;
    const unsigned first = blockIdx.x * BLOCK + threadIdx.x;
    unsigned i = first;
    unsigned acc[UNROLL] = {};
    for (; i + (UNROLL - 1) * step < n4; i += UNROLL * step) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in4[i + u * step];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += step) {
        const uint4 v = in4[i];
        acc[0] += v.x + v.y + v.z + v.w;
    }
    if (first < n % 4) acc[1] += in[n4 * 4 + first];
    unsigned s = 0;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];
    finish(block_sum(s, warp_sums), partial, out);
}
