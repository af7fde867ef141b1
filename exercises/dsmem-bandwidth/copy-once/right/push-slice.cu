// right: push instead of pull: each block loads its own slice from global memory and stores it straight into the neighbour's shared memory (st.shared::cluster), every word crossing the cluster once; after the cluster barrier each block sums what it was given from its own shared memory.
// Blocks run in clusters of two. Each thread of block b sums all TILE words of block
// (b ^ 1)'s slice of `data` and writes the sum to out[b * BLOCK + t]. A block may read only
// its own slice from global memory: the neighbour's words come from the neighbour's shared
// memory. `scratch` is not needed.
//

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

// Push instead of pull: each block loads its own slice from global memory and stores it
// straight into the neighbour's shared `inbox` (st.shared::cluster), every word crossing
// once; after the cluster barrier each block sums its inbox locally.
__device__ __forceinline__ void st_cluster(unsigned addr, unsigned v)
{
    asm volatile("st.shared::cluster.u32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
}
extern "C" __global__ void neighbour_once(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned inbox[TILE]; // the neighbour's slice, written by the neighbour
    const unsigned t = threadIdx.x, b = blockIdx.x;
    // The neighbour must have started (its shared memory exists) before we write into it.
    cluster_sync();
    const unsigned theirs = map_rank(inbox, cluster_rank() ^ 1u);
    for (unsigned i = t; i < TILE; i += BLOCK) st_cluster(theirs + 4u * i, data[(size_t)b * TILE + i]);
    cluster_sync();
    unsigned sum = 0;
#pragma unroll 8
    for (unsigned r = 0; r < TILE; ++r) sum += inbox[(t + r) & (TILE - 1)];
    out[(size_t)b * BLOCK + t] = sum;
}
