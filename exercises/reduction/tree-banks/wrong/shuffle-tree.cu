// wrong: [off the point] replaces the shared tree with shuffles: each warp sums its 32 words with __shfl_down_sync and only the 8 warp sums meet in shared memory, so no step of the tree it was asked to fix is left
// caught by: yours shared.load_words_per_request at most 1.6x solution
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


// One tile's sum (meaningful in thread 0): a shuffle tree per warp, then one over the
// warps' sums.
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    unsigned v = sdata[tid];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid % 32 == 0) warp_sums[tid / 32] = v;
    __syncthreads();
    v = tid < BLOCK / 32 ? warp_sums[tid] : 0u;
    if (tid < 32)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void reduce_tree(const unsigned* __restrict__ in, unsigned* partial,
                                       unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        sdata[tid] = base + tid < n ? in[base + tid] : 0u;
        __syncthreads();
        total += tree(sdata, tid);
        // The next tile overwrites sdata: every thread must be done reading this one.
        __syncthreads();
    }
    finish(total, partial, out);
}
