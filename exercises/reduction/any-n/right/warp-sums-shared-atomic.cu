// right: a uint4 grid-stride loop, the n % 4 words left over taken by the first threads of block 0; each warp sums its lanes by shuffles, then lane 0 of each warp adds its warp's sum into one shared word: 8 shared atomics a block beside the solution's one global update, 9x its atomic updates, a way of combining the warps, not of adding the words.
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
extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned block_total;
    if (threadIdx.x == 0) block_total = 0;
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    const unsigned n4 = n >> 2;
    unsigned total = 0;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n4; i += gridDim.x * BLOCK) {
        const uint4 v = in4[i];
        total += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < (n & 3u)) total += in[4 * n4 + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) total += __shfl_xor_sync(0xffffffffu, total, o);
    __syncthreads(); // block_total is zero before anyone adds
    if ((threadIdx.x & 31u) == 0) atomicAdd(&block_total, total);
    __syncthreads();
    finish(block_total, partial, out);
}
