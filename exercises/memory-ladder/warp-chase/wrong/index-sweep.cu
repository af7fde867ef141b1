// wrong: [off the point] times a walk of the drawn chain's words in index order (node i, then i + 1), each load made to wait for the last by adding its value times zero: the timed words and values are the chain's, but the walk is arithmetic, not a chase of the chain; the ends come from an untimed chase
// caught by: yours shared.timed_chase_pct >= 90
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
    // Timed: a fixed ring, node i -> node i + 1, each lane in its own word (conflict-free).
    const unsigned d = 1u;
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned p = base + (lane * NODE_WORDS + lane) * 4;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k) {
        // Node by node in index order; the word read is added in times zero, so each load
        // waits for the last one as a chase's would.
        asm volatile("{ .reg .u32 t; ld.shared.u32 t, [%0]; and.b32 t, t, 0; add.u32 %0, %0, t; }" : "+r"(p) : : "memory");
        p += NODE_WORDS * 4;
        if (p >= base + SET_WORDS * 4) p -= SET_WORDS * 4;
    }
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    __syncwarp();
    // The ends, untimed: the drawn chain written over the ring (same layout as the
    // solution's), chased ITERS % NODES steps: a single cycle of NODES nodes.
    const unsigned q = ((p - base) / 4 / NODE_WORDS + NODES - (ITERS * d) % NODES) % NODES; // == lane
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next[i] * NODE_WORDS + lane) * 4;
    __syncwarp();
    p = base + (q * NODE_WORDS + lane) * 4;
    for (int k = 0; k < ITERS % NODES; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    const unsigned folded = fold_ends((p - base) / (NODE_WORDS * 4));
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
