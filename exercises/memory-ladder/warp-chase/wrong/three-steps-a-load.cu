// wrong: [faked flag] each lane's column holds three steps of the chain at once (built with shuffles), so the timed loop makes a third of the loads and multiplies its figure by 3, with stores added to keep the request counts up: 0.92x to 0.93x the solution's words per request, requests and timed share, just over the old 0.9x bars (a red team's, passing every CPU check)
// caught by: yours shared.timed_reads_pct at least 0.95x solution
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
// This version has every lane follow the one chain, kept in word 0 of every node.

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

#define PAD 20

// next[j] for any j, from the four words each lane holds (node lane + 32 m in slot m).
__device__ __forceinline__ unsigned gather(const unsigned v[4], unsigned j)
{
    unsigned r0 = __shfl_sync(0xffffffffu, v[0], j & 31);
    unsigned r1 = __shfl_sync(0xffffffffu, v[1], j & 31);
    unsigned r2 = __shfl_sync(0xffffffffu, v[2], j & 31);
    unsigned r3 = __shfl_sync(0xffffffffu, v[3], j & 31);
    const unsigned m = j >> 5;
    return m == 0 ? r0 : m == 1 ? r1 : m == 2 ? r2 : r3;
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
    unsigned v[4], n2[4], n3[4];
#pragma unroll
    for (int m = 0; m < 4; ++m) v[m] = next[lane + 32 * m];
#pragma unroll
    for (int m = 0; m < 4; ++m) n2[m] = gather(v, v[m]);
#pragma unroll
    for (int m = 0; m < 4; ++m) n3[m] = gather(v, n2[m]);
    // 128 is not a multiple of 3: next^3 is still one cycle through every node.
    for (int rep = 0; rep < PAD; ++rep)
        for (unsigned i = 0; i < NODES; ++i) {
            const unsigned t = __shfl_sync(0xffffffffu, n3[i >> 5], i & 31);
            s[i * NODE_WORDS + lane] = base + (t * NODE_WORDS + lane) * 4;
        }
    __syncwarp();
    unsigned p = base + (lane * NODE_WORDS + lane) * 4;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS / 3; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    unsigned node = (p - base) / (NODE_WORDS * 4);
    for (int k = 0; k < ITERS % 3; ++k) node = gather(v, node);
    const unsigned folded = fold_ends(node);
    if (lane == 0) {
        cycles[0] = (t1 - t0) * 3;
        nanos[0] = (g1 - g0) * 3;
        end[0] = folded;
    }
}
