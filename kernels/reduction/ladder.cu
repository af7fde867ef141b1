// The reduction ladder: the sum of n unsigned words, six ways. Every rung reduces each
// block's share to one partial sum in shared memory and writes it to partial[blockIdx.x];
// the last block to finish (a counter, reset by that block for the next launch) adds the
// partials and writes out[0]. Unsigned sums wrap the same way in any order, so every rung
// writes the same number, checked exactly.
//   RUNG 1  interleaved addressing, divergent: at stride s, threads with tid % 2s == 0 add.
//   RUNG 2  interleaved addressing, no divergence: thread tid adds at index 2 s tid, so the
//           active threads are contiguous, but their words are 2s apart: bank conflicts.
//   RUNG 3  sequential addressing: at stride s, threads tid < s add word tid + s.
//   RUNG 4  as 3, each thread adding two words while it loads (half the blocks).
//   RUNG 5  as 4, the last 32 partials summed in registers with __shfl_down_sync.
//   RUNG 6  as 5, each thread first summing many words (a fixed grid walking the array).

#ifndef RUNG
#define RUNG 1
#endif
#define BLOCK 256

__device__ unsigned finish_count = 0;

__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        __threadfence();
        last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    unsigned s = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK) s += __ldcg(partial + i);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    __shared__ unsigned warp_sums[BLOCK / 32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (int w = 0; w < BLOCK / 32; ++w) total += warp_sums[w];
        out[0] = total;
        finish_count = 0;
    }
}

extern "C" __global__ void reduce(const unsigned* __restrict__ in, unsigned* partial,
                                  unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
#if RUNG <= 3
    const unsigned i = blockIdx.x * BLOCK + tid;
    sdata[tid] = i < n ? in[i] : 0;
#elif RUNG <= 5
    const unsigned i = blockIdx.x * (2 * BLOCK) + tid;
    sdata[tid] = (i < n ? in[i] : 0) + (i + BLOCK < n ? in[i + BLOCK] : 0);
#else
    unsigned acc = 0;
    for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += gridDim.x * BLOCK) acc += in[i];
    sdata[tid] = acc;
#endif
    __syncthreads();

#if RUNG == 1
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
#elif RUNG == 2
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < BLOCK) sdata[index] += sdata[index + s];
        __syncthreads();
    }
#elif RUNG <= 4
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
#else
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        unsigned v = sdata[tid] + sdata[tid + 32];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (tid == 0) sdata[0] = v;
    }
    __syncthreads();
#endif
    finish(sdata[0], partial, out);
}
