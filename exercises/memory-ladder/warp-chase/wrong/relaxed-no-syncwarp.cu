// wrong: [warp race] drops both __syncwarp()s: lane 0 shuffles the cycle and every lane builds and chases the chain with `.relaxed` shared stores and loads, strong but ordered by nothing; the interpreter runs the warp's lanes in lockstep, but on a GPU a lane may read next[] or a node before the lane that writes it has.
// caught by: race
// on: cpu

#define SET_WORDS (SET_BYTES / 4)
#define NODE_WORDS 32
#define NODES (SET_WORDS / NODE_WORDS)

__device__ __forceinline__ void st_rlx(unsigned* p, unsigned v)
{ asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(p)), "r"(v) : "memory"); }
__device__ __forceinline__ unsigned ld_rlx(const unsigned* p)
{ unsigned v; asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory"); return v; }
__device__ __forceinline__ void random_cycle(unsigned* next, unsigned nodes,
                                             const unsigned* rnd)
{
    for (unsigned k = 0; k < nodes; ++k) st_rlx(&next[k], k);
    for (unsigned k = nodes - 1; k > 0; --k) {
        const unsigned j = rnd[k] % k;
        const unsigned t = ld_rlx(&next[k]);
        st_rlx(&next[k], ld_rlx(&next[j]));
        st_rlx(&next[j], t);
    }
}

__device__ __forceinline__ unsigned fold_ends(unsigned node)
{
    unsigned v = node * (2u * (threadIdx.x & 31) + 1u);
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

__device__ __forceinline__ unsigned long long cycles_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

__device__ __forceinline__ unsigned long long nanos_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
    return t;
}

extern "C" __global__ void chase_warp(const unsigned* rnd, unsigned* end,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos)
{
    __shared__ unsigned s[SET_WORDS];
    __shared__ unsigned next[NODES];
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    if (lane == 0) random_cycle(next, NODES, rnd);
    for (unsigned i = 0; i < NODES; ++i)
        st_rlx(&s[i * NODE_WORDS + lane], base + (ld_rlx(&next[i]) * NODE_WORDS + lane) * 4);
    unsigned p = base + (lane * NODE_WORDS + lane) * 4;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k)
        asm volatile("ld.relaxed.cta.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    const unsigned folded = fold_ends((p - base) / (NODE_WORDS * 4));
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
