// Distributed shared memory: blocks of one thread-block cluster reading each other's shared
// memory. The cluster (2 blocks) is set by the launch attribute, not __cluster_dims__, and
// the cluster operations are inline PTX, so no cooperative_groups header is needed.
//
// Every variant computes the same thing: each thread of block b sums `reps` words of block
// (b ^ 1)'s slice of `data`, lane-linear, and writes the sum to out. Only the path differs:
//   PATH 0, TARGET 1  (remote)  each block copies its own slice into shared memory; the
//                               neighbour's copy is read through the cluster (mapa +
//                               ld.shared::cluster): distributed shared memory.
//   PATH 0, TARGET 0  (own)     each block copies the neighbour's slice into its own shared
//                               memory and reads it through the same cluster instructions,
//                               mapped to its own rank: ordinary shared memory.
//   PATH 1            (global)  each block writes its slice to `scratch`; after the cluster
//                               barrier the neighbour reads it from the L2 (ld.global.cg).
// Then thread 0 of the first CHASE_BLOCKS blocks times CHASE dependent loads over the same
// words (each address depends on the value the load before returned) with clock64 and
// writes the total to cycles[block]: the latency of the path.

#ifndef PATH
#define PATH 0
#endif
#ifndef TARGET
#define TARGET 1
#endif
#ifndef CHASE
#define CHASE 512
#endif
#define BLOCK 256
#define TILE 1024 // words per block's slice: 4 KiB, a power of two
#define CHASE_BLOCKS 16
#define LCG_A 1664525u
#define LCG_C 1013904223u

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

__device__ __forceinline__ unsigned ld_l2(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ unsigned long long cycles_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

extern "C" __global__ void neighbour_sum(const unsigned* data, unsigned* scratch, unsigned* out,
                                         unsigned long long* cycles, int reps)
{
    __shared__ unsigned tile[TILE];
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    const unsigned nb = b ^ 1u; // the other block of this cluster of two
#if PATH == 0 && TARGET == 0
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
#else
    const unsigned base = map_rank(tile, TARGET ? cluster_rank() ^ 1u : cluster_rank());
#define READ(i) ld_cluster(base + 4u * (i))
#endif

    unsigned sum = 0;
#pragma unroll 8
    for (int r = 0; r < reps; ++r) sum += READ((t + (unsigned)r * BLOCK) & (TILE - 1));
    out[(size_t)b * BLOCK + t] = sum;

    if (t == 0 && b < CHASE_BLOCKS) {
        unsigned i = 0;
        unsigned long long t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < CHASE; ++k) i = (i * LCG_A + LCG_C + READ(i)) & (TILE - 1);
        unsigned long long t1 = cycles_now();
        // i is never 2^32 - 1 (it is masked): the condition only keeps the chase alive.
        cycles[b] = t1 - t0 + (i == 0xffffffffu);
    }
    // A block's shared memory must outlive every read of it from the cluster.
    cluster_sync();
}
