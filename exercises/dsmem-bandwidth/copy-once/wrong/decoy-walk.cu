// wrong: [token use] makes the real sum once per block (four words a thread, shuffles, eight warp partials) and still walks the whole copy in every thread for show, the walk's values masked by a zero the compiler cannot see: the shared request floor and every count hold, and the walk feeds nothing (a red team's, passing every CPU check)
// caught by: yours shared.feeds_output_pct == 100
// on: cpu
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

extern "C" __global__ void neighbour_once(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned tile[TILE];
    __shared__ unsigned copy[TILE];
    __shared__ unsigned part[BLOCK / 32];
    const unsigned t = threadIdx.x, b = blockIdx.x;
    for (unsigned i = t; i < TILE; i += BLOCK) tile[i] = data[(size_t)b * TILE + i];
    cluster_sync();
    const unsigned theirs = map_rank(tile, cluster_rank() ^ 1u);
    for (unsigned i = t; i < TILE; i += BLOCK) copy[i] = ld_cluster(theirs + 4u * i);
    __syncthreads();
    unsigned s = copy[t] + copy[t + BLOCK] + copy[t + 2 * BLOCK] + copy[t + 3 * BLOCK];
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
    if ((t & 31) == 0) part[t / 32] = s;
    const unsigned mask = scratch == out ? ~0u : 0u; // never both: zero at run time
    unsigned decoy = 0;
#pragma unroll 8
    for (unsigned r = 0; r < TILE; ++r) decoy += copy[(t + r) & (TILE - 1)];
    __syncthreads();
    unsigned total = 0;
    for (int w = 0; w < BLOCK / 32; ++w) total += part[w];
    out[(size_t)b * BLOCK + t] = total + (decoy & mask);
    cluster_sync();
}
