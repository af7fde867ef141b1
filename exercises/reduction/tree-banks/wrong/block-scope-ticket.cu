// wrong: [grid race] takes the ticket with atom.relaxed.cta (a block's scope: neither atomic nor ordered for the other blocks) right after storing the partial, and only then runs __threadfence() and a 'blocks done' atomicAdd: the ticket may be seen before the partial
// caught by: yours global.unfenced_handover_words == 0
// on: cpu

#define BLOCK 256
__device__ unsigned finish_count = 0;
__device__ unsigned blocks_done = 0;
__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out, unsigned* sdata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    int last = 0;
    if (tid == 0) {
        partial[blockIdx.x] = block_sum;
        unsigned t;
        asm volatile("atom.relaxed.cta.global.add.u32 %0, [%1], 1;" : "=r"(t) : "l"(&finish_count) : "memory");
        __threadfence();
        atomicAdd(&blocks_done, 1u);
        last = t == gridDim.x - 1;
    }
    if (!__syncthreads_or(last)) return;
    unsigned s = 0;
    for (unsigned b = tid; b < gridDim.x; b += BLOCK) s += ((volatile unsigned*)partial)[b];
    sdata[tid] = s;
    __syncthreads();
    const unsigned total = tree(sdata, tid);
    if (tid == 0) { *out = total; finish_count = 0; blocks_done = 0; }
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
        __syncthreads();
    }
    finish(total, partial, out, sdata, n);
}
