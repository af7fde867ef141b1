// wrong: [cluster race] hands each block's total to its neighbour by relaxed stores at cluster scope, the total and then a flag, and polls the flag with relaxed loads: no cluster barrier and no release orders the total before the flag, so the neighbour may read a stale total
// caught by: yours shared.races == 0
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

// Relaxed at cluster scope: strong, but ordering nothing around them.
__device__ __forceinline__ void st_relaxed(unsigned addr, unsigned v)
{
    asm volatile("st.relaxed.cluster.shared::cluster.u32 [%0], %1;" : : "r"(addr), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned ld_relaxed(unsigned addr)
{
    unsigned v;
    asm volatile("ld.relaxed.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void neighbour_total(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned warp_sums[BLOCK / 32];
    __shared__ unsigned theirs_box; // the neighbour's total, pushed here by the neighbour
    __shared__ unsigned arrived;    // raised by the neighbour once it has pushed
    __shared__ unsigned theirs;
    const unsigned t = threadIdx.x, b = blockIdx.x;
    const unsigned lane = t % 32, warp = t / 32;
    if (t == 0) arrived = 0;
    // Both flags are clear before either block raises the other's.
    cluster_sync();

    unsigned v = 0;
    for (unsigned i = t; i < TILE; i += BLOCK) v += data[(size_t)b * TILE + i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (t == 0) {
        v = 0;
        for (unsigned w = 0; w < BLOCK / 32; ++w) v += warp_sums[w];
        const unsigned other = cluster_rank() ^ 1u;
        st_relaxed(map_rank(&theirs_box, other), v);
        st_relaxed(map_rank(&arrived, other), 1u);
        const unsigned mine = map_rank(&arrived, cluster_rank());
        while (ld_relaxed(mine) == 0) {
        }
        theirs = v + ld_relaxed(map_rank(&theirs_box, cluster_rank()));
    }
    __syncthreads();
    out[(size_t)b * BLOCK + t] = theirs;
    // No block exits while the other may still write into its memory.
    cluster_sync();
}
