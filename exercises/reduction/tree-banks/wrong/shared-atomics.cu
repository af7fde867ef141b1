// wrong: [slow-variant timing] lets every thread atomicAdd its word into one shared counter per tile: no load conflicts, no race, and no tree, with 256 atomics queueing on one address
// caught by: yours atomic.updates at most 4x solution
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


// One tile's sum: every thread adds its word to one shared counter.
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    __shared__ unsigned tile_sum;
    if (tid == 0) tile_sum = 0;
    __syncthreads();
    atomicAdd(&tile_sum, sdata[tid]);
    __syncthreads();
    const unsigned s = tid == 0 ? tile_sum : 0u;
    // Every thread must have read tile_sum before the next tile clears it.
    __syncthreads();
    return s;
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
