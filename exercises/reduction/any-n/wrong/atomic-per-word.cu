// wrong: [off the point] adds every word to one shared counter per block with its own atomicAdd: right for any n, but the 32 lanes of every warp queue at one address, and the loads are 4-byte ones
// caught by: yours atomic.updates at most 40x solution
// on: cpu
// The sum of n unsigned words, into out[0], for any n. The grid is fixed (the lesson's 8192
// blocks of BLOCK = 256 threads), far fewer threads than words. finish() adds a block's
// total to the grid's, and the last block to finish writes it out; unsigned sums wrap the
// same way in any order.

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

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    // The block's total, one atomic add per word.
    __shared__ unsigned block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        atomicAdd(&block_total, in[i]);
    __syncthreads();
    finish(block_total, partial, out);
}
