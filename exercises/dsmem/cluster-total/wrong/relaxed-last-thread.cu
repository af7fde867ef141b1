// wrong: [block race] drops the block's __syncthreads(): warp sums are stored and read with `.relaxed` shared accesses, strong but ordered by nothing, and the block's last thread sums them, publishes `mine` and makes the remote read; on a GPU it can add partials not yet stored.
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

__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" : : : "memory");
}

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

__device__ unsigned block_sum(unsigned h, unsigned* partial)
{
    for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(0xffffffffu, h, d);
    if ((threadIdx.x & 31) == 0)
        asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&partial[threadIdx.x / 32])), "r"(h) : "memory");
    unsigned total = 0;
    if (threadIdx.x == BLOCK - 1)
        for (int w = 0; w < BLOCK / 32; ++w) {
            unsigned v;
            asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(&partial[w])) : "memory");
            total += v;
        }
    return total;
}

extern "C" __global__ void cluster_total(const unsigned* __restrict__ in, unsigned* totals,
                                         unsigned long long* cycles, int tile)
{
    __shared__ unsigned partial[BLOCK / 32];
    __shared__ unsigned mine;
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) h += in[(size_t)b * tile + i];
    h = block_sum(h, partial);
    if (t == BLOCK - 1) mine = h;

    const unsigned long long t0 = cycles_now();
    // Every block's `mine` is written before any block reads the other's.
    cluster_sync();
    if (t == BLOCK - 1) {
        // One remote read per block: the other block's total, through the cluster.
        unsigned other = ld_cluster(map_rank(&mine, cluster_rank() ^ 1u));
        totals[b] = mine + other;
        const unsigned long long t1 = cycles_now();
        cycles[b] = t1 - t0;
    }
    // No block may exit while the other may still read its shared memory.
    cluster_sync();
}
