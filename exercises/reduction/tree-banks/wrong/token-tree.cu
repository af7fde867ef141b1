// wrong: [token use] the conflict-free tree climbs every tile, but its result enters the sum only through a mask that is 0 for every real n; each thread carries its words' sum in a register, and one last tree adds those
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

__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}
extern "C" __global__ void reduce_tree(const unsigned* __restrict__ in, unsigned* partial,
                                       unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const unsigned mask = (n == 0xffffffffu) ? 0xffffffffu : 0u;
    unsigned mine = 0, shown = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        const unsigned v = base + tid < n ? in[base + tid] : 0u;
        mine += v;
        sdata[tid] = v;
        __syncthreads();
        shown += tree(sdata, tid);
        __syncthreads();
    }
    sdata[tid] = mine;
    __syncthreads();
    const unsigned total = tree(sdata, tid) + (shown & mask);
    finish(total, partial, out);
}
