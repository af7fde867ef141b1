// right: each word of the chain holds the local address of the next node, turned so before the clock starts (one untimed pass more); the timed loop chases with ld.local [%0] in inline PTX, as the other rungs chase addresses
// A new rung for the ladder: local memory. Local memory is a thread's private memory in
// device memory, cached in L1 and the L2; the compiler puts a private array there when it
// cannot keep it in registers (an index known only at run time, say).
//
// Lane 0 of the one warp should build a chain in a private array of words, one node per
// word: random_cycle() fills such an array with one random cycle through every node (from
// node k the chain goes to node chain[k]), drawn from the fresh random words in `rnd`. It
// then follows the chain from node 0, each index being the word the previous load
// returned, and times ITERS steps with cycles_now() and nanos_now(). The set is
// `set_bytes` (a power of two, at most MAX_SET bytes), so the chain has set_bytes / 4
// nodes; one lap of it (that many steps) comes back to the node it started from.
//
// Write cycles[0] and nanos[0] (the totals for the ITERS timed steps) and end[0], the node
// the timed chase ended on. The cycle is new on every run, so only a chase through it
// knows that node: the lab compares it with the one its own chase of the same cycle found.

#define MAX_SET 16384

// One random cycle through nodes 0 .. nodes - 1 (Sattolo's shuffle): every node trades
// its successor with a node before it, never with itself, which leaves a single cycle.
__device__ __forceinline__ void random_cycle(unsigned* chain, unsigned nodes,
                                             const unsigned* rnd)
{
    for (unsigned k = 0; k < nodes; ++k) chain[k] = k;
    for (unsigned k = nodes - 1; k > 0; --k) {
        const unsigned j = rnd[k] % k;
        const unsigned t = chain[k];
        chain[k] = chain[j];
        chain[j] = t;
    }
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

extern "C" __global__ void chase_local(const unsigned* rnd, unsigned* end,
                                       unsigned long long* cycles,
                                       unsigned long long* nanos, unsigned set_bytes)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned nodes = set_bytes / 4;
    if (lane == 0) {
        unsigned chain[MAX_SET / 4];
        random_cycle(chain, nodes, rnd);
        const unsigned base = (unsigned)__cvta_generic_to_local(chain);
        for (unsigned k = 0; k < nodes; ++k) chain[k] = base + chain[k] * 4;
        unsigned p = base;
        for (unsigned k = 0; k < nodes; ++k)   // warm-up lap
            asm volatile("ld.local.u32 %0, [%0];" : "+r"(p) : : "memory");
        const unsigned long long g0 = nanos_now();
        const unsigned long long t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k)
            asm volatile("ld.local.u32 %0, [%0];" : "+r"(p) : : "memory");
        const unsigned long long t1 = cycles_now();
        const unsigned long long g1 = nanos_now();
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = (p - base) / 4;
    }
}
