// wrong: [grid race] adds its total into its zeroed partial with a relaxed atomicAdd and takes the ticket with no fence; the last block collects each partial with atomicExch(&partial[b], 0) (clearing it for the next launch): two relaxed atomics at different addresses are unordered, so the exchange may run before the add lands
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
        atomicAdd(&partial[blockIdx.x], block_sum);
        last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
    }
    if (!__syncthreads_or(last)) return;
    unsigned s = 0;
    for (unsigned b = tid; b < gridDim.x; b += BLOCK) s += atomicExch(&partial[b], 0u);
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
    finish(total, partial, out, sdata, n);
}
