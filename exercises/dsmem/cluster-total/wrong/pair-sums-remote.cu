// wrong: [unchecked structure] hands over no block total: each block leaves its 128 pair sums in shared memory, and warp 0 of the other block reads them all through the cluster in one request of 16-byte lanes (512 bytes where the solution's 4 would do) and adds them by shuffles; the remote requests stay at the solution's one
// caught by: yours cluster.remote_sectors at most 1x solution
// on: cpu

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
    __shared__ alignas(16) unsigned each[BLOCK / 2];
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) h += in[(size_t)b * tile + i];
    unsigned pairsum = h + __shfl_down_sync(0xffffffffu, h, 1);
    if ((t & 1) == 0) each[t / 2] = pairsum;
    const unsigned long long t0 = cycles_now();
    cluster_sync();
    if (t < 32) {
        const unsigned a = map_rank(&each[4 * t], cluster_rank() ^ 1u);
        uint4 o4;
        asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(o4.x), "=r"(o4.y), "=r"(o4.z), "=r"(o4.w) : "r"(a) : "memory");
        unsigned m = each[4 * t] + each[4 * t + 1] + each[4 * t + 2] + each[4 * t + 3];
        unsigned s = m + o4.x + o4.y + o4.z + o4.w;
        for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (t == 0) {
            totals[b] = s;
            const unsigned long long t1 = cycles_now();
            cycles[b] = t1 - t0;
        }
    }
    cluster_sync();
}
