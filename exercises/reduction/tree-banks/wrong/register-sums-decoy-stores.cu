// wrong: [token use] each thread sums its grid-stride words in a register (a later rung's way) and the block climbs one tree at the end; six stores a tile into words nobody reads bring the shared requests up to the solution's
// caught by: yours shared.stores_read_pct at least 0.95x solution
// on: cpu
#define BLOCK 256

// The grid's running total and how many blocks have added to it, in one word: the count in
// bits 50 and up, the sum below.
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
    const unsigned my = (unsigned)__cvta_generic_to_shared(sdata + tid);
    unsigned mine = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        mine += base + tid < n ? in[base + tid] : 0u;
#pragma unroll
        for (int d = 0; d < 6; ++d)
            asm volatile("st.shared.u32 [%0], %1;" :: "r"(my), "r"(mine) : "memory");
    }
    sdata[tid] = mine;
    __syncthreads();
    finish(tree(sdata, tid), partial, out);
}
