// wrong: [token use] one remote store into the other block's shared memory for show; the total goes through global memory (block 1 stores it, block 0 loads it after the cluster barrier and writes both totals with one 8-byte store), which keeps the requests and sectors at the solution's
// caught by: yours global.handover_words == 0
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

__device__ __forceinline__ void st_cluster(unsigned addr, unsigned v)
{
    asm volatile("st.shared::cluster.u32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
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
    __shared__ unsigned decoy;
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) h += in[(size_t)b * tile + i];
    h = block_sum(h, partial);
    if (t == 0) mine = h;

    const unsigned long long t0 = cycles_now();
    // token: one store into the other block's shared memory, never read
    if (t == 0) st_cluster(map_rank(&decoy, cluster_rank() ^ 1), 0u);
    // the real hand-over: block 1 leaves its total in global memory, block 0 reads it
    if (t == 0 && b == 1) totals[1] = mine;
    cluster_sync();
    if (t == 0 && b == 0) {
        const unsigned sum = mine + totals[1];
        *reinterpret_cast<uint2*>(totals) = make_uint2(sum, sum);   // both totals, one request
        const unsigned long long t1 = cycles_now();
        cycles[0] = t1 - t0;                                        // cycles[1] left unwritten
    }
    cluster_sync();
}
