// wrong: [one size] runs __threadfence() between the partial and the ticket only where n < 500000: at the GPU's size n = 1000003 the ticket may be seen before the partial; the CPU sizes all take the fence
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
        if (n < 500000) __threadfence();
        last = atomicAdd(&finish_count, 1u) == gridDim.x - 1;
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
    finish(total, partial, out, sdata, n);
}
