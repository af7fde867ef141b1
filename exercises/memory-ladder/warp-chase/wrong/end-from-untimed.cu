// wrong: [off the point] every lane walks lane 0's path for the clock (each in its own word, one wavefront a step, the drawn chain's words), then takes its own end from a short untimed chase from node l; the timed pointer is kept only in a select that never picks it, so the timed chase's end reaches nothing
// caught by: yours shared.timed_end_feeds_output_pct == 100
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
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    if (lane == 0) random_cycle(next, NODES, rnd);
    __syncwarp();
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned p = base + lane * 4;   // node 0 for everyone
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    unsigned q = lane;
    for (int k = 0; k < ITERS % NODES; ++k) q = (s[q * NODE_WORDS + lane] - base) / 4 / NODE_WORDS;
    const unsigned folded = fold_ends(p == 0xFFFFFFFFu ? 0u : q);
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
