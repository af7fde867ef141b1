// Latency of distributed shared memory, measured from one thread on a quiet GPU.
// One cluster of two blocks. Each block builds a table of TILE words in which word k holds
// the next index of a single cycle through all TILE words: hop(k) = (k * LCG_A + LCG_C) mod
// TILE (a full-period step, as LCG_A = 1 mod 4 and LCG_C is odd). Thread 0 of each block
// then follows the cycle for CHASE steps, each load's address being the value the load
// before returned, and times the steps with clock64:
//   PATH 0, TARGET 1  (remote)  the other block's table, through the cluster (mapa +
//                               ld.shared::cluster): distributed shared memory.
//   PATH 0, TARGET 0  (own)     its own table, with the same cluster instructions.
//   PATH 0, TARGET 2  (shared)  its own table, with ordinary shared loads.
//   PATH 1            (global)  the other block's table, written to `scratch` and read from
//                               the L2 (ld.global.cg).
// Each step costs the load plus one address computation (a shift and an add). Both blocks
// walk the same cycle from 0, so every variant ends on the same index: ends[] is checked,
// which proves every step read the right word.

#ifndef PATH
#define PATH 0
#endif
#ifndef TARGET
#define TARGET 1
#endif
#ifndef CHASE
#define CHASE 1024
#endif
#define TILE 1024
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

__device__ __forceinline__ unsigned long long cycles_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

extern "C" __global__ void chase(unsigned* scratch, unsigned* ends, unsigned long long* cycles)
{
    __shared__ unsigned tile[TILE];
    const unsigned t = threadIdx.x;
    const unsigned b = blockIdx.x;
    for (unsigned k = t; k < TILE; k += blockDim.x) {
        const unsigned hop = (k * LCG_A + LCG_C) & (TILE - 1);
#if PATH == 1
        scratch[(size_t)b * TILE + k] = hop;
#else
        tile[k] = hop;
#endif
    }
#if PATH == 1
    __threadfence();
#endif
    cluster_sync();

#if PATH == 1
    const unsigned* src = scratch + (size_t)(b ^ 1u) * TILE;
#define READ(i) ld_l2(src + (i))
#elif TARGET == 2
    const unsigned base = (unsigned)__cvta_generic_to_shared(tile);
#define READ(i) ld_shared(base + 4u * (i))
#else
    const unsigned base = map_rank(tile, TARGET ? cluster_rank() ^ 1u : cluster_rank());
#define READ(i) ld_cluster(base + 4u * (i))
#endif

    if (t == 0) {
        unsigned i = 0;
        unsigned long long t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < CHASE; ++k) i = READ(i);
        unsigned long long t1 = cycles_now();
        cycles[b] = t1 - t0;
        ends[b] = i;
    }
    // A block's shared memory must outlive every read of it from the cluster.
    cluster_sync();
}
