// wrong: [cluster race] pushes the total with a plain store through the cluster and polls its own word with a volatile load: a plain store and a load another block makes at the same time are a data race in PTX's memory model, and nothing orders the store before the owner's exit
// caught by: race
// on: cpu

#define BLOCK 256
#define MAX_TILE 4096

__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned cluster_blocks()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}

// Arrive has release and wait acquire semantics: shared writes before the barrier are seen
// by every thread of the cluster after it.
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" : : : "memory");
}

// The shared::cluster address of `p` (a shared variable) in block `rank` of the cluster.
__device__ __forceinline__ unsigned map_rank(const void* p, unsigned rank)
{
    unsigned own = (unsigned)__cvta_generic_to_shared(p), mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(own), "r"(rank));
    return mapped;
}

__device__ __forceinline__ unsigned ld_cluster(unsigned addr)
{
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

__device__ __forceinline__ unsigned long long cycles_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

// The block's total of `h`; every thread calls it.
__device__ unsigned block_sum(unsigned h, unsigned* partial)
{
    for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(0xffffffffu, h, d);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = h;
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < BLOCK / 32; ++w) total += partial[w];
    return total;
}
extern "C" __global__ void cluster_total(const unsigned* __restrict__ in, unsigned* totals,
                                         unsigned long long* cycles, int tile)
{
    __shared__ unsigned partial[BLOCK / 32];
    __shared__ alignas(8) unsigned long long theirs;   // low word: the total, high word: 1 once written
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    if (t == 0) theirs = 0;
    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) h += in[(size_t)b * tile + i];
    h = block_sum(h, partial);
    cluster_sync();   // both blocks have cleared `theirs` before either pushes
    if (t == 0) {
        const unsigned long long t0 = cycles_now();
        const unsigned other = map_rank(&theirs, cluster_rank() ^ 1);
        const unsigned long long packed = (1ull << 32) | h;
        asm volatile("st.shared::cluster.b64 [%0], %1;" :: "r"(other), "l"(packed) : "memory");
        const unsigned own = (unsigned)__cvta_generic_to_shared(&theirs);
        unsigned long long got;
        do {
            asm volatile("ld.volatile.shared::cta.b64 %0, [%1];" : "=l"(got) : "r"(own) : "memory");
        } while ((got >> 32) == 0);
        totals[b] = h + (unsigned)got;
        const unsigned long long t1 = cycles_now();
        cycles[b] = t1 - t0;
    }
}
