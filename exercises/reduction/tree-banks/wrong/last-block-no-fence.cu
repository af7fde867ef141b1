// wrong: [grid race] the last block to take a ticket adds up partial[], which every block stored before taking its ticket, but with no __threadfence() between the store and the ticket: on a GPU the ticket may be seen before the partial, and the last block adds a stale one
// caught by: yours global.unfenced_handover_words == 0
// on: cpu

// The sum of n unsigned words (any n), into out[0]. A fixed grid of blocks of BLOCK (256)
// threads walks the array in tiles of BLOCK words; a block reduces each tile with a tree in
// shared memory and keeps a running total. finish() then stores the block's total in
// partial[] and takes a ticket, and the block with the last ticket adds the partials up.
// Unsigned sums wrap the same way in any order.

#define BLOCK 256

// How many blocks have handed in their totals.
__device__ unsigned finish_count = 0;

// One tile's tree: returns the tile's sum (meaningful in thread 0).
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    // At stride s the first s threads add word tid + s: the working threads and their
    // words are both contiguous, one word per bank.
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}

// Every thread of the block calls it, with the block's total in thread 0.
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out, unsigned* sdata)
{
    const unsigned tid = threadIdx.x;
    int last = 0;
    if (tid == 0) {
        partial[blockIdx.x] = block_sum;
        last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
    }
    // Thread 0's word to the whole block, through the barrier rather than a shared word.
    if (!__syncthreads_or(last)) return;
    unsigned s = 0;
    for (unsigned b = tid; b < gridDim.x; b += BLOCK) s += ((volatile unsigned*)partial)[b];
    sdata[tid] = s;
    __syncthreads();
    const unsigned total = tree(sdata, tid);
    if (tid == 0) {
        *out = total;
        finish_count = 0;
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
        total += tree(sdata, tid);
        // The next tile overwrites sdata: every thread must be done reading this one.
        __syncthreads();
    }
    finish(total, partial, out, sdata);
}
