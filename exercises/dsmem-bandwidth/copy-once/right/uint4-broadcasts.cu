// The neighbour's slice crosses once as 16-byte remote loads (one uint4 a thread) into a local copy; every thread then sums all of the copy as broadcast uint4 shared loads, four words a request and no conflicts.
// Blocks run in clusters of two. Each thread of block b sums all TILE words of block
// (b ^ 1)'s slice of `data` and writes the sum to out[b * BLOCK + t]. A block may read only
// its own slice from global memory: the neighbour's words come from the neighbour's shared
// memory. `scratch` is not needed.
//
// This version reads every word of the neighbour's slice remotely, once per thread.

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

__device__ __forceinline__ uint4 ld_cluster4(unsigned addr)
{
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void neighbour_once(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ __align__(16) unsigned tile[TILE];
    __shared__ __align__(16) unsigned copy[TILE];
    const unsigned t = threadIdx.x, b = blockIdx.x;
    for (unsigned i = t; i < TILE; i += BLOCK) tile[i] = data[(size_t)b * TILE + i];
    cluster_sync();
    const unsigned theirs = map_rank(tile, cluster_rank() ^ 1u);
    reinterpret_cast<uint4*>(copy)[t] = ld_cluster4(theirs + 16u * t);
    cluster_sync(); // the copy complete in this block; the neighbour done reading ours
    const uint4* c4 = reinterpret_cast<const uint4*>(copy);
    unsigned sum = 0;
#pragma unroll 8
    for (unsigned r = 0; r < TILE / 4; ++r) {
        uint4 v = c4[r];
        sum += v.x + v.y + v.z + v.w;
    }
    out[(size_t)b * BLOCK + t] = sum;
}
