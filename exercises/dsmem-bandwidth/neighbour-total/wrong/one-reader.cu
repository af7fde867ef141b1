// wrong: [off the point] only rank 0 reads the neighbour's total and writes the outputs of both blocks; rank 1 publishes its total and writes nothing: one block's threads never take the cluster's total
// caught by: yours cluster.remote_blocks at least 1x solution
// on: cpu
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
    __shared__ unsigned part[BLOCK / 32];
    __shared__ unsigned mine, other;
    const unsigned t = threadIdx.x, b = blockIdx.x;
    unsigned h = 0;
    for (unsigned i = t; i < TILE; i += BLOCK) h += data[(size_t)b * TILE + i];
    for (int d = 16; d; d >>= 1) h += __shfl_xor_sync(0xffffffffu, h, d);
    if ((t & 31) == 0) part[t / 32] = h;
    __syncthreads();
    if (t == 0) { unsigned s = 0; for (int w = 0; w < BLOCK / 32; ++w) s += part[w]; mine = s; }

    cluster_sync();
    if (cluster_rank() == 0) {
        if (t == 0) other = mine + ld_cluster(map_rank(&mine, 1u));
        __syncthreads();
        out[(size_t)b * BLOCK + t] = other;
        out[(size_t)(b + 1) * BLOCK + t] = other;
    }
    cluster_sync();
}
