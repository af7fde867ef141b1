// wrong: [off the point] lays the chain out a second time two steps to a pointer and chases that for ITERS / 2 steps, each beside a load of the node between that nothing waits on: as many timed shared loads, all chasing the drawn chain, but half the latencies one after the other
// caught by: yours shared.timed_serial_pct >= 90
// on: cpu
// The shared-memory rung, timed with a whole warp: all 32 lanes chase at once, each from
// its own node, lane l starting at node l. The chain lies in NODES nodes 128 bytes
// (32 words) apart; random_cycle() draws it afresh on every run from the random words in
// `rnd`, one cycle through every node (from node i it goes to node next[i]). Each step is
// one warp request, and the time per step should be one shared-memory access, as with one
// lane.
//
// end[0] gets fold_ends() of the node each lane's timed chase ended on: the lab compares
// it with what its own chase of the same cycle found.
//
// Lane l follows its own copy of the chain, kept in word l of every node: at every step the
// 32 lanes read 32 different banks, and the request is served in one wavefront.

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
    // The chain two steps at a time, laid out as s is.
    __shared__ unsigned s2[SET_WORDS];
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    const unsigned base2 = (unsigned)__cvta_generic_to_shared(s2);
    if (lane == 0) random_cycle(next, NODES, rnd);
    __syncwarp();
    // Each word holds the shared address of the same lane's word in the next node.
    for (unsigned i = 0; i < NODES; ++i) {
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
        s2[i * NODE_WORDS + lane] = base2 + (next[next[i]] * NODE_WORDS + lane) * 4;
    }
    __syncwarp();
    unsigned p = base2 + (lane * NODE_WORDS + lane) * 4;
    unsigned between = 0;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
    // As many shared loads as ITERS steps, half of them one after the other: the load of
    // the node between waits on the last step, and nothing waits on it.
#pragma unroll 8
    for (int k = 0; k < ITERS / 2; ++k) {
        unsigned b = p - base2 + base;
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(b) : : "memory");
        between ^= b;
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    }
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    const unsigned folded = fold_ends((p - base2) / (NODE_WORDS * 4) + (between == 1u));
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
