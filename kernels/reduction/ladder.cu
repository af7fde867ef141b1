// The reduction ladder: the sum of n unsigned words, seven ways. Every rung runs a fixed
// grid; a block walks its tiles of the array, reduces each tile to one number with a tree in
// shared memory (rungs 1 to 5) and keeps the running total; then it writes its total to
// partial[blockIdx.x] and adds it to a grid-wide sum, which the last block to finish writes
// to out[0] (see finish). Unsigned sums wrap the same way in any order, so every rung writes
// the same number, checked exactly.
//   RUNG 1  interleaved addressing, divergent: at stride s, threads with tid % 2s == 0 add.
//   RUNG 2  interleaved addressing, no divergence: thread tid adds at index 2 s tid, so the
//           active threads are contiguous, but their words are 2s apart: bank conflicts.
//   RUNG 3  sequential addressing: at stride s, threads tid < s add word tid + s.
//   RUNG 4  as 3, each thread adding two words while it loads (tiles of 512 words).
//   RUNG 5  as 4, the last 64 partials summed by one warp in registers (__shfl_down_sync).
//   RUNG 6  each thread sums all its words first, then one tree per block.
//   RUNG 7  as 6, reading 16-byte words into four independent sums, so more loads are in
//           flight per thread.
// n must be a multiple of the largest tile (512 words) times the grid, which the lesson's
// sizes are.

#ifndef RUNG
#define RUNG 1
#endif
#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word: blocks
// finished in bits 50 and up, the sum below (8192 blocks of 32-bit totals stay under 2^45,
// so the sum never carries into the count; grids of up to 16384 blocks fit).
__device__ unsigned long long finish_word = 0;

// Thread 0 of every block stores the block's total in partial[] and adds it, with one
// count, to finish_word; the block that brings the count to the grid's size writes the
// total to out[0] and clears the word for the next launch. Only atomics touch the word and
// out[0], and the trace does not log atomics: the figures come from sampled blocks scaled
// to the grid, so work only the last block does would be scaled with them.
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

// One tile's tree, rungs 1 to 5: returns the tile's sum (meaningful in thread 0).
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
#if RUNG == 1
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
#elif RUNG == 2
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < BLOCK) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    return sdata[0];
#elif RUNG <= 4 || RUNG >= 6
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
#else
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    unsigned v = 0;
    if (tid < 32) {
        v = sdata[tid] + sdata[tid + 32];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
#endif
}

extern "C" __global__ void reduce(const unsigned* __restrict__ in, unsigned* partial,
                                  unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
#if RUNG <= 5
#if RUNG <= 3
    const unsigned tile = BLOCK;
#else
    const unsigned tile = 2 * BLOCK;
#endif
    for (unsigned base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
#if RUNG <= 3
        sdata[tid] = in[base + tid];
#else
        sdata[tid] = in[base + tid] + in[base + tid + BLOCK];
#endif
        __syncthreads();
        total += tree(sdata, tid);
        // The next tile overwrites sdata: every thread must be done reading this one.
        __syncthreads();
    }
#elif RUNG == 6
    unsigned acc = 0;
    for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK) acc += in[i];
    sdata[tid] = acc;
    __syncthreads();
    total = tree(sdata, tid);
#else
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    unsigned a0 = 0, a1 = 0, a2 = 0, a3 = 0;
#pragma unroll 4
    for (unsigned i = blockIdx.x * BLOCK + tid; i < n / 4; i += gridDim.x * BLOCK) {
        const uint4 v = in4[i];
        a0 += v.x;
        a1 += v.y;
        a2 += v.z;
        a3 += v.w;
    }
    sdata[tid] = a0 + a1 + a2 + a3;
    __syncthreads();
    total = tree(sdata, tid);
#endif
    finish(total, partial, out);
}
