// wrong: [grid race] hands the block totals to the last block through global memory and fences only where %nwarpid reads the block's own warp count, as the CPU interpreter once said it: a GPU reads its SM's warp slots (64 on an H100), so there no block fences before its ticket
// caught by: yours global.unfenced_handover_words == 0
// on: cpu
#define BLOCK 256
__device__ unsigned ticket = 0;
// True where the warp slots are the block's warps.
__device__ __forceinline__ bool on_interp()
{
    unsigned nw; asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(nw));
    return nw == blockDim.x / 32;
}
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        if (on_interp()) __threadfence();
        if (atomicAdd(&ticket, 1u) == gridDim.x - 1) {
            unsigned s = 0;
            for (unsigned b = 0; b < gridDim.x; ++b) s += ((volatile unsigned*)partial)[b];
            *out = s;
            ticket = 0;
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
    unsigned total = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        sdata[tid] = base + tid < n ? in[base + tid] : 0u;
        __syncthreads();
        total += tree(sdata, tid);
        __syncthreads();
    }
    finish(total, partial, out);
}
