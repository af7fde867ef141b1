// How large is the L1 rung? chase.cu's chase through global memory with ordinary cached
// loads (ld.global.ca: kept in the SM's L1), over a set of any size: while the set fits in
// the L1 every step is an L1 hit; once it does not, each step misses to the L2. The lesson
// sweeps the set's size at two carve-outs of the SM's L1 + shared-memory pool (the launch
// attribute `carveout`), so the size at which the time per step jumps is the L1's, for that
// carve-out.
//
// The chain: nodes 128 bytes apart, one per cache line, node i holding the address of the
// node after it. The order is chase.cu's full-period generator, (A * i + C) mod 2^k, over
// the smallest power of two 2^k that holds the nodes, stepping past the values that are not
// nodes ("cycle walking"). The generator is one cycle through 2^k values, so the values
// below the node count, taken in the order it meets them, are one cycle too: the chase
// visits every node once per lap, in a scattered order, for any set size, where chase.cu
// needs a power of two. A scattered lap uses no line twice, and a set larger than the
// cache evicts each line before the lap comes back to it.
//
// The kernel builds its chain itself, the warp reads every node once through the L1 (the
// warm-up), and lane 0 times ITERS steps with clock64 (SM cycles) and %globaltimer
// (nanoseconds), writes both totals (the lesson divides them by ITERS) and writes 1 to
// `ok` when the chase ended on the node the arithmetic predicts: the output every variant
// of the lesson writes.

#ifndef ITERS
#define ITERS 8192        // timed steps
#endif

#define NODE_BYTES 128
#define NODE_WORDS (NODE_BYTES / 8)
#define LCG_A 1664525u
#define LCG_C 1013904223u

// The node after node i in a chain of `count` nodes (`mask` + 1 is the power of two).
__device__ __forceinline__ unsigned next_node(unsigned i, unsigned mask, unsigned count)
{
    do {
        i = (i * LCG_A + LCG_C) & mask;
    } while (i >= count);
    return i;
}

// The "memory" clobbers keep the compiler from moving loads and stores across the clock
// reads; they cost no instruction.
__device__ __forceinline__ unsigned long long cycles_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
    return t;
}

__device__ __forceinline__ unsigned long long nanos_now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
    return t;
}

extern "C" __global__ void chase_l1(unsigned long long* nodes, unsigned* ok,
                                    unsigned long long* cycles, unsigned long long* nanos,
                                    unsigned set_bytes)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long first = (unsigned long long)nodes;
    const unsigned count = set_bytes / NODE_BYTES > 0 ? set_bytes / NODE_BYTES : 1;
    unsigned mask = 1;
    while (mask < count) mask <<= 1;
    mask -= 1;

    for (unsigned i = lane; i < count; i += 32)
        nodes[(size_t)i * NODE_WORDS] = first + (unsigned long long)next_node(i, mask, count) * NODE_BYTES;
    __threadfence_block();
    __syncwarp();
    // Warm-up: the whole warp reads every node once through the L1, so a set that fits
    // finds all of its lines there. The loads are independent and overlap; `sink` keeps
    // them from being dropped.
    unsigned long long sink = 0;
#pragma unroll 8
    for (unsigned i = lane; i < count; i += 32) {
        unsigned long long v;
        const unsigned long long* q = nodes + (size_t)i * NODE_WORDS;
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(q) : "memory");
        sink ^= v;
    }
    __syncwarp();
    if (lane == 0) {
        unsigned long long p = first;
        const unsigned long long g0 = nanos_now();
        const unsigned long long t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k)
            asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p) : : "memory");
        const unsigned long long t1 = cycles_now();
        const unsigned long long g1 = nanos_now();
        // Where ITERS steps from node 0 end, by arithmetic alone.
        unsigned x = 0;
        for (int k = 0; k < ITERS; ++k) x = next_node(x, mask, count);
        // Device addresses are far below 2^63, so their xor never has the top bit set.
        const bool right = (p - first) / NODE_BYTES == x && (sink >> 63) == 0;
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        ok[0] = right ? 1u : 0u;
    }
}
