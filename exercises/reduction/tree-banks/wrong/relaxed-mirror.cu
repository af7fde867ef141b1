// wrong: [block race] climbs a mirrored tree (the top s threads add word tid - s) with no barrier between its steps, every tree load and store `.relaxed`, strong but ordered by nothing; each step needs only words of lower warps, which run first on the interpreter, but on a GPU a warp can read a partial before the lower warp has stored it.
// caught by: race
// on: cpu
#define BLOCK 256
__device__ __forceinline__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void st_rlx(unsigned* p, unsigned v)
{ asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" :: "r"(sa(p)), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned ld_rlx(const unsigned* p)
{ unsigned v; asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(sa(p)) : "memory"); return v; }

__device__ unsigned long long finish_word = 0;

__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == BLOCK - 1) {
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
        if (tid >= BLOCK - s) st_rlx(&sdata[tid], ld_rlx(&sdata[tid]) + ld_rlx(&sdata[tid - s]));
    }
    return ld_rlx(&sdata[BLOCK - 1]);
}

extern "C" __global__ void reduce_tree(const unsigned* __restrict__ in, unsigned* partial,
                                       unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        st_rlx(&sdata[tid], base + tid < n ? in[base + tid] : 0u);
        __syncthreads();
        total += tree(sdata, tid);
        __syncthreads();
    }
    finish(total, partial, out);
}
