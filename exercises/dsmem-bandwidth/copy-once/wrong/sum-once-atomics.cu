// wrong: [off the point] each thread reads its four remote words once and adds them to one shared total with atomicAdd, and every thread reads the total back: one sum for the block, no thread summing the copy
// caught by: yours shared.lane_words at least 0.9x solution
// on: cpu
// Blocks run in clusters of two. Each thread of block b sums all TILE words of block
// (b ^ 1)'s slice of `data` and writes the sum to out[b * BLOCK + t]. A block may read only
// its own slice from global memory: the neighbour's words come from the neighbour's shared
// memory. `scratch` is not needed.

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

extern "C" __global__ void neighbour_once(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned copy[TILE];
    const unsigned t = threadIdx.x, b = blockIdx.x;
    for (unsigned i = t; i < TILE; i += BLOCK) tile[i] = data[(size_t)b * TILE + i];
    if (t == 0) copy[0] = 0;
    cluster_sync();
    const unsigned theirs = map_rank(tile, cluster_rank() ^ 1u);
    unsigned s = 0;
    for (unsigned i = t; i < TILE; i += BLOCK) s += ld_cluster(theirs + 4u * i);
    atomicAdd(&copy[0], s);
    __syncthreads();
    out[(size_t)b * BLOCK + t] = copy[0];
    cluster_sync();
}
