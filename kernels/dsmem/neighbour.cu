// Distributed shared memory: blocks of one thread-block cluster reading each other's shared
// memory. The cluster (2 blocks) is set by the launch attribute, not __cluster_dims__, and
// the cluster operations are inline PTX, so no cooperative_groups header is needed.
//
// Every variant computes the same thing: each thread of block b sums all TILE words of block
// (b ^ 1)'s slice of `data`, each once, lane-linear, and writes the sum. The slices differ,
// so a variant that read the wrong block's words would write a wrong sum. Only the path
// differs:
//   PATH 0, TARGET 1  (remote)  each block copies its own slice into shared memory; the
//                               neighbour's copy is read through the cluster (mapa +
//                               ld.shared::cluster): distributed shared memory.
//   PATH 0, TARGET 0  (own)     each block copies the neighbour's slice into its own shared
//                               memory and reads it with the same cluster instructions,
//                               mapped to its own rank.
//   PATH 0, TARGET 2  (shared)  as `own`, read with ordinary shared loads (ld.shared): the
//                               path every other lesson's shared memory takes.
//   PATH 1            (global)  each block writes its slice to `scratch`; after the cluster
//                               barrier the neighbour reads it from the L2 (ld.global.cg).
// Latency is measured apart, from one thread on a quiet GPU (chase.cu): while thousands of
// threads stream, a single load waits in the same queues and shows the load, not the path.
//
// Loads are inline PTX so the compiler keeps each one, and every thread's TILE loads name
// different words, so ptxas has no two equal loads to merge either.

#ifndef PATH
#define PATH 0
#endif
#ifndef TARGET
#define TARGET 1
#endif
#define BLOCK 256
#define TILE 1024 // words per block's slice: 4 KiB, a power of two

__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// Arrive has release and wait acquire semantics (PTX's defaults): writes before the barrier,
// shared or global, are seen by every thread of the cluster after it.
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

__device__ __forceinline__ unsigned ld_shared(unsigned addr)
{
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

__device__ __forceinline__ unsigned ld_l2(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

extern "C" __global__ void neighbour_sum(const unsigned* data, unsigned* scratch, unsigned* out)
{
    __shared__ unsigned tile[TILE];
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    const unsigned nb = b ^ 1u; // the other block of this cluster of two
#if PATH == 0 && TARGET != 1
    const unsigned* mine = data + (size_t)nb * TILE;
#else
    const unsigned* mine = data + (size_t)b * TILE;
#endif
    for (unsigned i = t; i < TILE; i += BLOCK) {
#if PATH == 1
        scratch[(size_t)b * TILE + i] = mine[i];
#else
        tile[i] = mine[i];
#endif
    }
#if PATH == 1
    __threadfence();
#endif
    cluster_sync();

#if PATH == 1
    const unsigned* src = scratch + (size_t)nb * TILE;
#define READ(i) ld_l2(src + (i))
#elif TARGET == 2
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
#define READ(i) ld_shared(base + 4u * (i))
#else
    const unsigned base = map_rank(tile, TARGET ? cluster_rank() ^ 1u : cluster_rank());
#define READ(i) ld_cluster(base + 4u * (i))
#endif

    // Step r reads word (t + r * BLOCK + r / 4) mod TILE: a warp reads 32 neighbouring words
    // (no bank conflict), and over TILE steps a thread meets every word once.
    unsigned sum = 0;
#pragma unroll 8
    for (unsigned r = 0; r < TILE; ++r) sum += READ((t + r * BLOCK + (r >> 2)) & (TILE - 1));

    out[(size_t)b * BLOCK + t] = sum;
    // A block's shared memory must outlive every read of it from the cluster.
    cluster_sync();
}
