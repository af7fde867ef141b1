// Another right answer: the chase written once as a helper, run for the warm-up lap and again
// between the clock reads; only the copy inlined between them is timed.
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

__device__ __forceinline__ unsigned walk(const unsigned* chain, unsigned p, int steps)
{
    for (int k = 0; k < steps; ++k) p = chain[p];
    return p;
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
        unsigned p = walk(chain, 0, nodes);   // warm-up lap
        unsigned long long g0 = nanos_now();
        unsigned long long t0 = cycles_now();
        p = walk(chain, p, ITERS);
        unsigned long long t1 = cycles_now();
        unsigned long long g1 = nanos_now();
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = p;
    }
}
