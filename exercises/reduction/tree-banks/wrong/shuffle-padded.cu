// wrong: [token use] does the tree with shuffles and pads its shared reads to the solution's mix of widths
// caught by: yours shared.requests at least 0.9x solution
// on: cpu

// The sum of n unsigned words (any n), into out[0]. A fixed grid of blocks of BLOCK (256)
// threads walks the array in tiles of BLOCK words; a block reduces each tile with a tree in
// shared memory and keeps a running total. finish() then adds the block's total to the
// grid's, and the last block to finish writes it out. Unsigned sums wrap the same way in
// any order.

#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word: the count in
// bits 50 and up, the sum below.
__device__ unsigned long long finish_word = 0;

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

extern "C" __global__ void reduce_tree(const unsigned* __restrict__ in, unsigned* partial,
                                       unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    __shared__ unsigned wsum[BLOCK / 32 + 1];
    const unsigned tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    unsigned total = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        sdata[tid] = base + tid < n ? in[base + tid] : 0u;
        unsigned v = ((volatile unsigned*)sdata)[tid];                      // whole-warp read of its own word
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) wsum[w] = v;
        __syncthreads();
        if (w == 0) {
            unsigned u = lane < BLOCK / 32 ? wsum[lane] : 0u;   // one 8-word request
            for (int o = 4; o > 0; o >>= 1) u += __shfl_down_sync(0xffffffffu, u, o);
            if (lane == 0) wsum[BLOCK / 32] = u;
        }
        __syncthreads();
        total += wsum[BLOCK / 32];                      // 8 one-word broadcasts, like the tree's sdata[0]
        __syncthreads();
    }
    finish(total, partial, out);
}
