// wrong: [off the point] times each step in a window of its own that closes as soon as the load is issued; the next window opens on a clock read made to wait for the loaded node, so every load's latency falls between two windows and the figure is the cost of issuing a load (7 to 16 cycles on an H200, against the solution's 233)
// caught by: correct
// on: cpu
#define MAX_SET 16384

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

// The clock read that opens a window waits for the chase's current node (a predicate on
// it), so each window opens only once the last load has landed and closes right after the
// next load is ISSUED: the wait for that load falls outside, before the next window.
__device__ __forceinline__ unsigned long long cycles_after(unsigned x)
{
    unsigned long long t;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0xffffffff;"
                 " @q mov.u64 %0, %%clock64; @!q mov.u64 %0, 0; }"
                 : "=l"(t) : "r"(x) : "memory");
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
        unsigned x = 0;
        for (unsigned k = 0; k < nodes; ++k) x = chain[x];
        unsigned long long cyc = 0;
        unsigned long long g0 = nanos_now();
        for (int k = 0; k < ITERS; ++k) {
            unsigned long long t0 = cycles_after(x);
            x = chain[x];
            unsigned long long t1 = cycles_now();
            cyc += t1 - t0;
        }
        unsigned long long g1 = nanos_now();
        cycles[0] = cyc;
        nanos[0] = g1 - g0;
        end[0] = x;
    }
}
