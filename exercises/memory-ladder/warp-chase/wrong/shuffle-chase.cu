// wrong: [token use] keeps the chain in registers and steps it with shuffles, one shared read for show
// caught by: yours shared.requests at least 0.9x solution
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

extern "C" __global__ void chase_warp(const unsigned* rnd, unsigned* end,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos)
{
    __shared__ unsigned s[32];
    const unsigned lane = threadIdx.x & 31;
    unsigned nx[NODES];   // every lane draws the same cycle in its own private array
    random_cycle(nx, NODES, rnd);
    const unsigned r0 = nx[lane], r1 = nx[lane + 32], r2 = nx[lane + 64], r3 = nx[lane + 96];
    s[lane] = lane;
    __syncwarp();
    unsigned p = s[lane];   // token: one conflict-free 32-word shared load
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 8
    for (int k = 0; k < ITERS; ++k) {
        const unsigned a = __shfl_sync(0xffffffffu, r0, p & 31);
        const unsigned b = __shfl_sync(0xffffffffu, r1, p & 31);
        const unsigned c = __shfl_sync(0xffffffffu, r2, p & 31);
        const unsigned d = __shfl_sync(0xffffffffu, r3, p & 31);
        const unsigned h = p >> 5;
        p = h == 0 ? a : h == 1 ? b : h == 2 ? c : d;
    }
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    const unsigned folded = fold_ends(p);
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        end[0] = folded;
    }
}
