// wrong: starts every lane at node 0 of its own copy: no conflicts, but the lanes are no longer at their own nodes and end where lane 0 does
// caught by: correct
// on: cpu
// The shared-memory rung, timed with a whole warp: all 32 lanes chase at once, each from
// its own node, lane l starting at node l. The chain is the ladder's: NODES nodes
// 128 bytes (32 words) apart, node i pointing at node next_node(i). Each step is one warp
// request, and the time per step should be one shared-memory access, as with one lane.
//
// Lane l follows its own copy of the chain, kept in word l of every node: at every step the
// 32 lanes read 32 different banks, and the request is served in one wavefront.

#define SET_WORDS (SET_BYTES / 4)
#define NODE_WORDS 32
#define NODES (SET_WORDS / NODE_WORDS)
#define LCG_A 1664525u
#define LCG_C 1013904223u

__device__ __forceinline__ unsigned next_node(unsigned i)
{
    return (i * LCG_A + LCG_C) & (NODES - 1);
}

// Where ITERS steps from node `start` end, by arithmetic alone.
__device__ __forceinline__ unsigned predicted_end(unsigned start)
{
    unsigned x = start;
    for (int k = 0; k < ITERS; ++k) x = next_node(x);
    return x;
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

extern "C" __global__ void chase_warp(unsigned long long* nodes, unsigned* flush,
                                      int flush_words, unsigned* ok,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos, float a, float b,
                                      unsigned set_bytes)
{
    __shared__ unsigned s[SET_WORDS];
    const unsigned lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    // Each word holds the shared address of the same lane's word in the next node.
    for (unsigned i = 0; i < NODES; ++i)
        s[i * NODE_WORDS + lane] = base + (next_node(i) * NODE_WORDS + lane) * 4;
    __syncwarp();
    unsigned p = base + lane * 4;
    unsigned long long g0 = nanos_now();
    unsigned long long t0 = cycles_now();
#pragma unroll 16
    for (int k = 0; k < ITERS; ++k)
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
    unsigned long long t1 = cycles_now();
    unsigned long long g1 = nanos_now();
    const bool right = (p - base) / 4 == predicted_end(lane) * NODE_WORDS + lane;
    const bool all = __all_sync(0xffffffffu, right);
    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        ok[0] = all ? 1u : 0u;
    }
}
