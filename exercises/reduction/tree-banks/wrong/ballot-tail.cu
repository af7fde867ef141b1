// wrong: [token use] the shared tree stops at 32 words; the last five levels are a sum of 32 ballots, a bit plane each, and lane 0 bounces the total through a shared word so that the shared requests come out as the solution's
// caught by: yours shuffles == 0
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

// One tile's tree: returns the tile's sum (meaningful in thread 0).
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    // At stride s the first s threads add word tid + s: the working threads and their
    // words are both contiguous, one word per bank.
    for (unsigned s = BLOCK / 2; s > 16; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        unsigned v = tid < 16 ? sdata[tid] + sdata[tid + 16] : 0u;
        // 32 ballots (one a bit plane) do the last levels; lane 0 bounces the total through
        // sdata[0] four times, as many requests as the tree's narrowing steps
        {
            unsigned t = 0;
            for (int b = 0; b < 32; ++b) t += (unsigned)__popc(__ballot_sync(0xffffffffu, (v >> b) & 1u)) << b;
            v = t;
        }
        for (int o = 8; o > 0; o >>= 1) {
            if (tid == 0) { volatile unsigned* b = sdata; b[0] = v; v = b[0]; }
        }
        if (tid == 0) { volatile unsigned* b = sdata; b[0] = v; v = b[0]; b[0] = v; v = b[0]; b[0] = v; v = b[0]; b[0] = v; }
    }
    __syncthreads();
    return sdata[0];
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
