// wrong: [grid race] takes the ticket with atom.acq_rel.cluster: release semantics at the cluster's scope only (one block without a cluster launch), so blocks elsewhere may see the ticket before the partial
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
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out, unsigned* sdata)
{
    const unsigned tid = threadIdx.x;
    int last = 0;
    if (tid == 0) {
        partial[blockIdx.x] = block_sum;
        unsigned old;
        asm volatile("atom.acq_rel.cluster.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(&finish_count) : "memory");
        last = old == gridDim.x - 1;
    }
    if (!__syncthreads_or(last)) return;
    unsigned s = 0;
    for (unsigned b = tid; b < gridDim.x; b += BLOCK) s += ((volatile unsigned*)partial)[b];
    sdata[tid] = s;
    __syncthreads();
    const unsigned total = tree(sdata, tid);
    if (tid == 0) { *out = total; finish_count = 0; }
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
    finish(total, partial, out, sdata);
}
