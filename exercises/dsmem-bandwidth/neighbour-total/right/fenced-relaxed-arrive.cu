// Another right answer: the second cluster barrier split as a fence.acq_rel.cluster and then a
// relaxed arrive and a wait; the fence gives the relaxed arrive the release a plain one has
// (PTX's memory model), so the remote read above it is done before the neighbour may exit.
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
    __shared__ unsigned mine, both;
    const unsigned t = threadIdx.x, b = blockIdx.x;
    const uint4 q = reinterpret_cast<const uint4*>(data + (size_t)b * TILE)[t];   // 4 words a thread
    unsigned h = q.x + q.y + q.z + q.w;
    for (int d = 16; d > 0; d >>= 1) h += __shfl_xor_sync(0xffffffffu, h, d);
    if ((t & 31) == 0) partial[t / 32] = h;
    __syncthreads();
    if (t == 0) {
        unsigned s = 0;
        for (int w = 0; w < BLOCK / 32; ++w) s += partial[w];
        mine = s;
    }
    cluster_sync();   // both totals written
    if (t == 0) both = mine + ld_cluster(map_rank(&mine, cluster_rank() ^ 1u));
    asm volatile("fence.acq_rel.cluster;\n\tbarrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::: "memory");
    out[(size_t)b * BLOCK + t] = both;
}
