// wrong: [faked flag] times a dependent walk through the private array in order (0, 1, 2, ...: the same local loads, one after another), and chases the drawn chain untimed for the end the lab checks: the cycles are not the chain's
// caught by: yours local.timed_reads_pct at least 0.75x solution
// on: cpu
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
        unsigned p = 0;
        for (int k = 0; k < ITERS; ++k) p = chain[p];       // the real chase, untimed, cold
        unsigned q = 0;
        for (unsigned k = 0; k < nodes; ++k) q = (q + 1 + (chain[q] >> 31)) & (nodes - 1);
        unsigned long long g0 = nanos_now();
        unsigned long long t0 = cycles_now();
        for (int k = 0; k < ITERS; ++k) q = (q + 1 + (chain[q] >> 31)) & (nodes - 1);
        unsigned long long t1 = cycles_now();
        unsigned long long g1 = nanos_now();
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = p + (q >> 31);
    }
}
