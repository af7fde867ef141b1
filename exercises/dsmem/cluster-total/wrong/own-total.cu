// wrong: [wrong output] maps the address of `mine` to its own rank, so each block adds its own total twice
// caught by: correct
// on: cpu
// Each cluster of two blocks holds a signal of its own, split between its blocks (the
// grid holds several clusters). Block b adds up the
// `tile` words in[b * tile ...] (tile need not be a multiple of the block), then every
// block writes the total of its cluster's signal, both parts, to totals[b]; thread 0 writes
// the cycles its exchange took to cycles[b].

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
    __shared__ unsigned mine;
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) h += in[(size_t)b * tile + i];
    h = block_sum(h, partial);
    if (t == 0) mine = h;

    const unsigned long long t0 = cycles_now();
    // Every block's `mine` is written before any block reads the other's.
    cluster_sync();
    if (t == 0) {
        // One remote read per block: the other block's total, through the cluster.
        unsigned other = ld_cluster(map_rank(&mine, cluster_rank()));
        totals[b] = mine + other;
        const unsigned long long t1 = cycles_now();
        cycles[b] = t1 - t0;
    }
    // No block may exit while the other may still read its shared memory.
    cluster_sync();
}
