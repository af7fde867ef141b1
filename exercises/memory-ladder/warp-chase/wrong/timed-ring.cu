// wrong: [faked flag] fills the chase's words with a ring (each lane's word of node i points at the same lane's word of node i + 1) and times a chase round it, the same 4096 words one wavefront a step, then writes the drawn chain over it and chases that untimed for the ends the lab checks: the cycles it reports are not the chain's
// caught by: yours shared.timed_reads_pct at least 0.95x solution
// on: cpu
// The shared-memory rung, timed with a whole warp: all 32 lanes chase at once, each in its
// own word of every node.

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

extern "C" __global__ void chase_warp(const unsigned* rnd, unsigned* end,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos)
{
    __shared__ unsigned s[SET_WORDS];
    __shared__ unsigned next[NODES];
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    // A ring over the same words: node i to node i + 1.
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (((i + 1) % NODES) * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned q = base + (lane * NODE_WORDS + lane) * 4;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(q) : : "memory");
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    __syncwarp();
    // The drawn chain over the ring, chased untimed.
    if (lane == 0) random_cycle(next, NODES, rnd);
    __syncwarp();
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned p = base + (lane * NODE_WORDS + lane) * 4;
    for (int k = 0; k < ITERS; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    const unsigned folded = fold_ends((p - base) / (NODE_WORDS * 4)) + (q == 1u ? 1u : 0u);
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
