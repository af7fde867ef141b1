// wrong: [off the point] brings the neighbour's whole 4 KiB slice across the cluster in 16-byte reads and adds it up at home: as few remote requests as the solution's totals, sixteen times the bytes
// caught by: yours cluster.remote_sectors at most 1.1x solution
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

__device__ __forceinline__ uint4 ld_cluster4(unsigned addr)
{
    uint4 v;
    asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void neighbour_total(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ __align__(16) unsigned slice[TILE];
    __shared__ unsigned warp_sums[BLOCK / 32];
    __shared__ unsigned tot;
    const unsigned t = threadIdx.x, b = blockIdx.x;
    const unsigned lane = t % 32, warp = t / 32;
    // Own slice into shared memory, coalesced as before.
    for (unsigned i = t; i < TILE; i += BLOCK) slice[i] = data[(size_t)b * TILE + i];
    cluster_sync();
    // Each thread takes 4 words of its own slice and 4 of the neighbour's, the latter in one
    // 16-byte read through the cluster: 8 warp requests carry the neighbour's whole slice.
    uint4 m = *reinterpret_cast<const uint4*>(&slice[4 * t]);
    uint4 o = ld_cluster4(map_rank(&slice[4 * t], cluster_rank() ^ 1u));
    unsigned v = m.x + m.y + m.z + m.w + o.x + o.y + o.z + o.w;
    for (int q = 16; q > 0; q >>= 1) v += __shfl_down_sync(0xffffffffu, v, q);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? warp_sums[lane] : 0u;
        for (int q = 16; q > 0; q >>= 1) v += __shfl_down_sync(0xffffffffu, v, q);
        if (lane == 0) tot = v;
    }
    __syncthreads();
    out[(size_t)b * BLOCK + t] = tot;
    cluster_sync();
}
