// right: no ticket: each block stores its partial and then raises its own flag with st.release.gpu; the grid's last block waits on every other block's flag with ld.acquire.gpu (release/acquire: the partial is there once the flag is) and adds the partials, clearing the flags for the next launch

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
__device__ unsigned flags[1 << 16];
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out, unsigned* sdata, unsigned n)
{
    const unsigned tid = threadIdx.x;
    const unsigned me = blockIdx.x;
    if (me != gridDim.x - 1) {
        if (tid == 0) {
            partial[me] = block_sum;
            asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(flags + me), "r"(1u) : "memory");
        }
        return;
    }
    unsigned s = tid == 0 ? block_sum : 0u;
    for (unsigned b = tid; b < me; b += BLOCK) {
        unsigned f;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flags + b) : "memory");
        } while (f == 0);
        s += partial[b];
        flags[b] = 0;
    }
    sdata[tid] = s;
    __syncthreads();
    const unsigned total = tree(sdata, tid);
    if (tid == 0) *out = total;
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
