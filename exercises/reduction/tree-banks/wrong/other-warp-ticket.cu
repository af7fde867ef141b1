// wrong: [grid race] thread 0 stores the partial and fences it, but thread 32 (another warp) takes the ticket with no barrier in between, so the ticket may be taken before the partial is even stored; a later 'blocks done' atomicAdd by thread 0 is what the fence ends up ordering
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
        __threadfence();
    }
    if (tid == 32) last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
    const int any = __syncthreads_or(last);
    if (tid == 0) atomicAdd(&blocks_done, 1u);
    if (!any) return;
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
