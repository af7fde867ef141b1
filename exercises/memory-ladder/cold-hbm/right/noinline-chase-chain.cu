// right: the timed chase through __noinline__ hop_twice() -> __noinline__ hop(), each written on one line (ITERS is even).
// The HBM rung: one lane chases a chain whose nodes lie 128 bytes apart, one per cache
// line, all over a set of `set_bytes` (1 GiB). Node i holds the address of node
// next_node(i); the chase from node 0 visits ITERS nodes, which are the only ones written.
//
// This version warms the visited nodes up before it times the chase, as the L2 rung does.

#define NODE_BYTES 128
#define NODE_WORDS (NODE_BYTES / 8)
#define LCG_A 1664525u
#define LCG_C 1013904223u

__device__ __forceinline__ unsigned next_node(unsigned i, unsigned mask)
{
    return (i * LCG_A + LCG_C) & mask;
}

// Where ITERS steps from node 0 end, by arithmetic alone.
__device__ __forceinline__ unsigned predicted_end(unsigned mask)
{
    unsigned x = 0;
    for (int k = 0; k < ITERS; ++k) x = next_node(x, mask);
    return x;
}

__device__ __noinline__ unsigned long long hop(unsigned long long p)
{
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p) : : "memory");
    return p;
}
__device__ __noinline__ unsigned long long hop_twice(unsigned long long p) { return hop(hop(p)); }

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

extern "C" __global__ void chase_cold(unsigned long long* nodes, unsigned* flush,
                                      int flush_words, unsigned* ok,
                                      unsigned long long* cycles,
                                      unsigned long long* nanos, float a, float b,
                                      unsigned set_bytes)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long first = (unsigned long long)nodes;
    const unsigned mask = set_bytes / NODE_BYTES - 1;
    if (lane == 0) {
        unsigned x = 0;
        for (int k = 0; k < ITERS; ++k) {
            unsigned nx = next_node(x, mask);
            nodes[(size_t)x * NODE_WORDS] = first + (unsigned long long)nx * NODE_BYTES;
            x = nx;
        }
    }
    __threadfence();
    __syncwarp();
    unsigned long long sink = 0;
    // Flush: one word of every 128-byte line of `flush` written, 32 lines a warp request.
    for (int w = lane * 32; w < flush_words; w += 32 * 32) flush[w] = w;
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        unsigned long long p = first;
        unsigned long long g0 = nanos_now();
        unsigned long long t0 = cycles_now();
        for (int k = 0; k < ITERS; k += 2) p = hop_twice(p);
        unsigned long long t1 = cycles_now();
        unsigned long long g1 = nanos_now();
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        // Device addresses are far below 2^63, so their xor never has the top bit set.
        bool right = (p - first) / NODE_BYTES == predicted_end(mask) && (sink >> 63) == 0;
        ok[0] = right ? 1u : 0u;
    }
}
