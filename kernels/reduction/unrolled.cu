// The reduction's last rungs: the sum of n unsigned words (n a multiple of 4) by a grid
// sized to the GPU, each thread keeping several 16-byte loads in flight. Unsigned sums wrap
// the same way in any order, so the sum equals ladder.cu's, checked exactly.
//   UNROLL  independent 16-byte loads each thread issues before it adds any of them: where
//           ladder.cu's rung 7 adds each load before its next (as the compiler schedules
//           the loop), these wait for memory together.
//   STREAM  1: the loads carry the evict-first hint (ld.global.cs, what __ldcs emits):
//           each word is read once, so none is worth keeping in the caches.
// A thread's sum goes through a warp shuffle, the warps' sums through shared memory and
// one barrier, and the block's total to the grid's total with one atomic (finish).

#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef STREAM
#define STREAM 0
#endif
#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word, as in
// ladder.cu: blocks finished in bits 50 and up, the sum below.
__device__ unsigned long long finish_word = 0;

// Thread 0 stores the block's total in partial[] and adds it, with one count, to
// finish_word; the block that brings the count to the grid's size writes the total to
// out[0] and clears the word for the next launch.
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

__device__ __forceinline__ uint4 load4(const uint4* p)
{
#if STREAM
    return __ldcs(p);
#else
    return *p;
#endif
}

__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void reduce_unrolled(const unsigned* __restrict__ in, unsigned* partial,
                                           unsigned* out, unsigned n)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    const unsigned n4 = n / 4;
    const unsigned step = gridDim.x * BLOCK;
    unsigned i = blockIdx.x * BLOCK + threadIdx.x;

    unsigned acc[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc[u] = 0;
    // Whole groups: UNROLL loads, then UNROLL sums, so the loads are in flight together.
    for (; i + (UNROLL - 1) * step < n4; i += UNROLL * step) {
        uint4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = load4(in4 + i + u * step);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u] += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    // What makes no whole group, one load at a time.
    for (; i < n4; i += step) {
        const uint4 v = load4(in4 + i);
        acc[0] += v.x + v.y + v.z + v.w;
    }
    unsigned s = 0;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) s += acc[u];

    s = warp_sum(s);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = s;
    // Warp 0 reads what every warp's lane 0 stored.
    __syncthreads();
    if (warp == 0) s = warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0);
    finish(s, partial, out);
}
