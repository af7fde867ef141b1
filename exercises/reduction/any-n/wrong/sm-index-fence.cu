// wrong: [grid race] hands the block totals to the last block through global memory and fences only where the block's %smid is its index mod the SMs, as the CPU interpreter once dealt its blocks: a GPU's scheduler deals them otherwise, so there nearly no block fences before its ticket
// caught by: yours global.unfenced_handover_words == 0
// on: cpu
#define BLOCK 256
__device__ unsigned ticket = 0;
// True where this block runs on the SM its index names, mod the SMs.
__device__ __forceinline__ bool on_interp()
{
    unsigned sm, sms;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(sms));
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return sm == b % sms;
}
__device__ unsigned warp_sum(unsigned v);
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    __shared__ unsigned last, red[BLOCK / 32];
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        if (on_interp()) __threadfence();
        last = atomicAdd(&ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    unsigned s = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) s += ((volatile unsigned*)partial)[b];
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned t = 0;
        for (int w = 0; w < BLOCK / 32; ++w) t += red[w];
        *out = t;
        ticket = 0;
    }
}
__device__ unsigned warp_sum(unsigned v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned warps[BLOCK / 32];
    const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned stride = gridDim.x * BLOCK;
    const unsigned nq = n >> 2;
    const uint4* q = reinterpret_cast<const uint4*>(in);
    unsigned a = 0, b = 0;
    unsigned i = g;
    for (; i + stride < nq; i += 2 * stride) {
        uint4 u = q[i], v = q[i + stride];
        a += u.x + u.y + u.z + u.w;
        b += v.x + v.y + v.z + v.w;
    }
    if (i < nq) { uint4 u = q[i]; a += u.x + u.y + u.z + u.w; }
    if (g < (n & 3u)) a += in[4 * nq + g];
    unsigned s = warp_sum(a + b);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = s;
    __syncthreads();
    unsigned total = 0;
    if (threadIdx.x < 32) {
        total = warp_sum(threadIdx.x < BLOCK / 32 ? warps[threadIdx.x] : 0u);
    }
    finish(total, partial, out);
}
