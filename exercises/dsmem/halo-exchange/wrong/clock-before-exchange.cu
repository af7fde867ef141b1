// wrong: [faked flag] the exchange is right, but its clock is read twice before the cluster barrier, so the cycles it writes hold none of the exchange
// caught by: correct
// on: cpu
// A three-point sum over a signal held by the two blocks of a cluster, each cluster of the
// grid with a signal of its own. Block b owns the
// `tile` words in[b * tile ...]: it mixes each into its shared array v, then needs, for
// every word, the value on each side: out[i] = v[i - 1] + v[i] + v[i + 1], with 0 past the
// ends of its cluster's signal. At the seam the neighbour is in the other block.
//
// Each block writes one checksum of its outputs to sums[b], and thread 0 the cycles from
// the exchange's start to the block's sum, which uses what the exchange brought, to
// cycles[b].

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

__device__ __forceinline__ unsigned mix(unsigned x)
{
    x ^= x >> 7;
    return x * 2654435761u + 12345u;
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

extern "C" __global__ void halo_sum(const unsigned* __restrict__ in, unsigned* sums,
                                    unsigned long long* cycles, int tile)
{
    __shared__ unsigned v[MAX_TILE];
    __shared__ unsigned partial[BLOCK / 32];
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    for (int i = t; i < tile; i += BLOCK) v[i] = mix(in[(size_t)b * tile + i]);

    const unsigned long long t0 = cycles_now();
    // The values just outside this block's part: v[tile - 1] of the block before it in
    // the cluster, v[0] of the block after it, and 0 past the ends of the signal.
    const unsigned long long t1 = cycles_now();
    unsigned left = 0, right = 0;
    cluster_sync();
    const unsigned rank = cluster_rank(), nr = cluster_blocks();
    if (rank > 0) left = ld_cluster(map_rank(&v[tile - 1], rank - 1));
    if (rank + 1 < nr) right = ld_cluster(map_rank(&v[0], rank + 1));

    unsigned h = 0;
    for (int i = t; i < tile; i += BLOCK) {
        unsigned l = i > 0 ? v[i - 1] : left;
        unsigned r = i + 1 < tile ? v[i + 1] : right;
        h += (l + v[i] + r) * ((b * tile + i) * 2u + 1u);
    }
    h = block_sum(h, partial);
    if (t == 0) {
        sums[b] = h;
        cycles[b] = t1 - t0;
    }
    cluster_sync();
}
