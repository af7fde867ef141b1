// wrong: loads every node but takes each index from the arithmetic, not from the load before: the loads overlap and the figure is a throughput, not a latency
// caught by: yours measured.cycles_per_access greater than register by >= 3x
// on: gpu - only the time shows whether the loads waited for each other
// A new rung for the ladder: local memory. Local memory is a thread's private memory in
// device memory, cached in L1 and the L2; the compiler puts a private array there when it
// cannot keep it in registers (an index known only at run time, say).
//
// Lane 0 of the one warp should build a chain in a private array of words, one node per
// word: word k holds next_node(k, mask), the next node of a full cycle through every word.
// It then follows the chain, each index being the word the previous load returned, and
// times ITERS steps with cycles_now() and nanos_now(). The set is `set_bytes` (a power of
// two, at most MAX_SET bytes), so the chain has set_bytes / 4 nodes; one lap of it (that
// many steps from node 0) comes back to node 0.
//
// Write cycles[0] and nanos[0] (the totals for the ITERS timed steps) and ok[0] = 1 when
// the timed chase, started from node 0, ended on predicted_end(mask).

#define MAX_SET 16384
#define LCG_A 1664525u
#define LCG_C 1013904223u

__device__ __forceinline__ unsigned next_node(unsigned i, unsigned mask)
{
    return (i * LCG_A + LCG_C) & mask;
}

// Where ITERS steps from node 0 end, by arithmetic alone.
__device__ __forceinline__ unsigned predicted_end(unsigned mask)
{
    unsigned x = 0;
    for (int k = 0; k < ITERS; ++k) x = next_node(x, mask);
    return x;
}

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

extern "C" __global__ void chase_local(unsigned long long* nodes, unsigned* flush,
                                       int flush_words, unsigned* ok,
                                       unsigned long long* cycles,
                                       unsigned long long* nanos, float a, float b,
                                       unsigned set_bytes)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned mask = set_bytes / 4 - 1;
    if (lane == 0) {
        // The chain, in an array indexed at run time: local memory.
        unsigned chain[MAX_SET / 4];
        for (unsigned k = 0; k <= mask; ++k) chain[k] = next_node(k, mask);
        // One lap first, as the l1 rung warms its lines: it brings every node's line into
        // L1 and ends on node 0 again.
        unsigned i = 0;
        for (unsigned k = 0; k <= mask; ++k) i = chain[i];
        unsigned long long g0 = nanos_now();
        unsigned long long t0 = cycles_now();
        unsigned sink = 0;
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k) {
            sink += chain[i];
            i = next_node(i, mask);
        }
        if (sink == 0xffffffffu) i = 0;
        unsigned long long t1 = cycles_now();
        unsigned long long g1 = nanos_now();
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        ok[0] = i == predicted_end(mask) ? 1u : 0u;
    }
}
