// wrong: [off the point] the 32-copy layout, but each step is timed in a window of its own that closes as soon as the warp's load is issued; the next window opens on a clock read made to wait for the loaded pointer, so the latency falls between windows (14 cycles a step on an H200, against the solution's 23)
// caught by: correct
// on: cpu
#define SET_WORDS (SET_BYTES / 4)
#define NODE_WORDS 32
#define NODES (SET_WORDS / NODE_WORDS)

// One random cycle through nodes 0 .. nodes - 1 (Sattolo's shuffle): every node trades
// its successor with a node before it, never with itself, which leaves a single cycle.
__device__ __forceinline__ void random_cycle(unsigned* next, unsigned nodes,
                                             const unsigned* rnd)
{
    for (unsigned k = 0; k < nodes; ++k) next[k] = k;
    for (unsigned k = nodes - 1; k > 0; --k) {
        const unsigned j = rnd[k] % k;
        const unsigned t = next[k];
        next[k] = next[j];
        next[j] = t;
    }
}

// The nodes the 32 lanes ended on, folded into one word for the lab to compare: lane l's
// node counts 2l + 1 times, so ends swapped between lanes change it too. Every lane must
// call it; every lane gets the same word.
__device__ __forceinline__ unsigned fold_ends(unsigned node)
{
    unsigned v = node * (2u * (threadIdx.x & 31) + 1u);
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
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

// Opens each window only once the last step's pointer has landed (the clock read is
// predicated on it) and closes it as soon as the next load is issued.
__device__ __forceinline__ unsigned long long cycles_after(unsigned p)
{
    unsigned long long t;
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0xffffffff;"
                 " @q mov.u64 %0, %%clock64; @!q mov.u64 %0, 0; }"
                 : "=l"(t) : "r"(p) : "memory");
    return t;
}

extern "C" __global__ void chase_warp(const unsigned* rnd, unsigned* end,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos)
{
    __shared__ unsigned s[SET_WORDS];
    __shared__ unsigned next[NODES];
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    if (lane == 0) random_cycle(next, NODES, rnd);
    __syncwarp();
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned p = base + (lane * NODE_WORDS + lane) * 4;
    unsigned long long cyc = 0;
    unsigned long long g0 = nanos_now();
    for (int k = 0; k < ITERS; ++k) {
        unsigned long long t0 = cycles_after(p);
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
        unsigned long long t1 = cycles_now();
        cyc += t1 - t0;
    }
    unsigned long long g1 = nanos_now();
    const unsigned folded = fold_ends((p - base) / (NODE_WORDS * 4));
    if (lane == 0) {
        cycles[0] = cyc;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
