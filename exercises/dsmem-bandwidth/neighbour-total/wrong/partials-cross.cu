// wrong: [off the point] each warp reads the neighbour's eight warp partial sums in one request of eight lanes and adds them, where the neighbour's total is one word: one sector all the same, eight times the words crossing the cluster
// caught by: yours cluster.remote_words at most 2x solution
// on: cpu
// Blocks run in clusters of two. Every thread of block b writes the same number to
// out[b * BLOCK + t]: the sum of all 2 TILE words of the cluster's two slices of `data`,
// block b's and block (b ^ 1)'s, so the same number in both blocks. The lesson's variants
// sum the neighbour's slice 256 times over. A block may read only its own slice from
// global memory; what it needs of the neighbour's comes from the neighbour's shared
// memory. `scratch` is not needed. Unsigned sums wrap the same way in any order.

#define BLOCK 256
#define TILE 1024 // words per block's slice: 4 KiB

// The cluster operations, as inline PTX (the cluster of two is set by the launch).
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// Every thread of both blocks waits here; writes before it, shared or global, are seen by
// every thread of the cluster after it.
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

// One word at a shared::cluster address: through the SM-to-SM network when it is the
// other block's.
__device__ __forceinline__ unsigned ld_cluster(unsigned addr)
{
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void neighbour_total(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned partial[BLOCK / 32];
    const unsigned t = threadIdx.x, b = blockIdx.x, lane = t & 31;
    unsigned h = 0;
    for (unsigned i = t; i < TILE; i += BLOCK) h += data[(size_t)b * TILE + i];
    for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(0xffffffffu, h, d);
    if (lane == 0) partial[t / 32] = h;
    cluster_sync();
    unsigned s = 0;
    if (lane < BLOCK / 32)
        s = partial[lane] + ld_cluster(map_rank(&partial[lane], cluster_rank() ^ 1u));
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    out[(size_t)b * BLOCK + t] = s;
    cluster_sync();
}
