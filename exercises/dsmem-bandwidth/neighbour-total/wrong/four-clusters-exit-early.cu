// wrong: [hidden trace] clusters 400 to 403 of the lesson's grid skip the cluster barrier before exit, so a block may exit while its neighbour still reads its total: the CPU traces one cluster at that size and misses them; a GPU counts every cluster's synchronisations and traces one whose count no traced cluster has
// caught by: race
// on: gpu - the CPU interpreter traces a sample of clusters at the lesson's size and takes no census of the others
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
    __shared__ unsigned warp_sums[BLOCK / 32];
    __shared__ unsigned block_total; // this block's sum, for the neighbour to read
    const unsigned t = threadIdx.x, b = blockIdx.x;
    const unsigned lane = t % 32, warp = t / 32;

    // Sum the own slice: four coalesced words a thread, then a shuffle tree per warp and
    // one over the warps' sums.
    unsigned v = 0;
    for (unsigned i = t; i < TILE; i += BLOCK) v += data[(size_t)b * TILE + i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warp_sums[lane] : 0u;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0) block_total = v;
    }
    // Both totals are written before either block reads the other's.
    cluster_sync();

    // One word crosses the cluster per warp: lane 0 reads it, the warp shares it.
    unsigned theirs = 0;
    if (lane == 0) theirs = ld_cluster(map_rank(&block_total, cluster_rank() ^ 1u));
    theirs = __shfl_sync(0xffffffffu, theirs, 0);
    out[(size_t)b * BLOCK + t] = block_total + theirs;
    if ((b >> 1) - 400u >= 4u) cluster_sync();
}
