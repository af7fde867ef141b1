// wrong: [off the point] flushes and chases as asked, but times each step in a window of its own that closes as soon as the load is issued; the next window opens on a clock read made to wait for the loaded pointer, so no HBM latency is inside any window (14 cycles a step on an H200, against the solution's 666)
// caught by: correct
// on: cpu
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
    // Flush: one word into every 128-byte line of `flush` (32 words a line), a warp's
    // 32 lanes writing 32 consecutive lines per request.
    for (int i = lane * 32; i < flush_words; i += 32 * 32) flush[i] = (unsigned)i;
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        unsigned long long p = first;
        unsigned long long cyc = 0;
        unsigned long long g0 = nanos_now();
        for (int k = 0; k < ITERS; ++k) {
            // Each window opens once p has landed (the clock read is predicated on it) and
            // closes as soon as the next load is issued: the HBM wait falls between windows.
            unsigned long long t0;
            asm volatile("{ .reg .pred q; setp.ne.u64 q, %1, 0;"
                         " @q mov.u64 %0, %%clock64; @!q mov.u64 %0, 0; }"
                         : "=l"(t0) : "l"(p) : "memory");
            asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p) : : "memory");
            unsigned long long t1 = cycles_now();
            cyc += t1 - t0;
        }
        unsigned long long g1 = nanos_now();
        cycles[0] = cyc;
        nanos[0] = g1 - g0;
        // Device addresses are far below 2^63, so their xor never has the top bit set.
        bool right = (p - first) / NODE_BYTES == predicted_end(mask) && (sink >> 63) == 0;
        ok[0] = right ? 1u : 0u;
    }
}
