// wrong: [grid race] the block's sum and count go into the 64-bit finish word with at most three atomicCAS tries (a guess of 0, then two retries with the value returned), then it gives up: with four or more blocks finishing together a sum and a count are lost on a GPU
// caught by: correct
// on: cpu
#define BLOCK 256
__device__ unsigned long long finish_word = 0;
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        const unsigned long long add = (1ull << 50) + block_sum;
        unsigned long long before = 0ull, old = atomicCAS(&finish_word, 0ull, add);
        if (old != 0ull) {
            before = old; old = atomicCAS(&finish_word, before, before + add);
            if (old != before) { before = old; atomicCAS(&finish_word, before, before + add); }
        }
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}

extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    unsigned total = 0;
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned threads = gridDim.x * blockDim.x;
    const uint4* q = (const uint4*)in;
    const unsigned quads = n / 4;
    unsigned i = tid;
    for (; i + 3 * threads < quads; i += 4 * threads) {
        const uint4 a = q[i], b = q[i + threads], c = q[i + 2 * threads], d = q[i + 3 * threads];
        total += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) + (d.x + d.y + d.z + d.w);
    }
    for (; i < quads; i += threads) { const uint4 a = q[i]; total += a.x + a.y + a.z + a.w; }
    if (tid < n % 4) total += in[4 * quads + tid];
    for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
    __shared__ unsigned warp_sums[BLOCK / 32];
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = total;
    __syncthreads();
    if (threadIdx.x < 32) {
        total = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0u;
        for (int o = 4; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
    }
    finish(total, partial, out);
}
