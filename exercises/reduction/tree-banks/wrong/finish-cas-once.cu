// wrong: [grid race] the conflict-free tree, but the block's total and its ticket go into the grid's word with a plain read and one atomicCAS, never retried: blocks finishing together on a GPU lose totals, and the ticket may never reach the grid's size (out stays unwritten); the interpreter ran one block after another and every swap matched
// caught by: correct
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
        const unsigned long long before = *(volatile unsigned long long*)&finish_word;
        atomicCAS(&finish_word, before, before + (1ull << 50) + block_sum);
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}

__device__ void tree_top(unsigned* sdata, unsigned tid)
{
#pragma unroll
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid >= BLOCK - s) sdata[tid] += sdata[tid - s];
        __syncthreads();
    }
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
        tree_top(sdata, tid);
        if (tid == BLOCK - 1) total += sdata[BLOCK - 1];
        __syncthreads();
    }
    // finish() hands thread 0's total: move the last thread's there.
    __shared__ unsigned handoff;
    if (tid == BLOCK - 1) handoff = total;
    __syncthreads();
    finish(tid == 0 ? handoff : 0u, partial, out);
}
