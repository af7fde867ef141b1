// wrong: [token use] the conflict-free tree climbs every tile in one loop, but each pass overwrites the last one's result: only one more pass, over the sums each thread carried in a register, reaches the output
// caught by: yours shared.feeds_output_pct == 100
// on: cpu
#define BLOCK 256
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
    const unsigned tid = threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
    unsigned mine = 0, total = 0;
    // One pass a tile and one more: every pass climbs the same tree (the same load sites),
    // and the last pass's climb, over the register sums, is the one kept.
    for (unsigned base = blockIdx.x * BLOCK;; base += stride) {
        const bool last = base >= n;
        unsigned v = 0;
        if (!last && base + tid < n) v = in[base + tid];
        mine += v;
        sdata[tid] = last ? mine : v;
        __syncthreads();
        for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
        total = sdata[0];
        __syncthreads();
        if (last) break;
    }
    finish(total, partial, out);
}
