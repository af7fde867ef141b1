// The memory ladder: the latency of one level at a time, measured by one thread following a
// chain in which every load's address is the value the previous load returned. No two loads
// can overlap, so the time per step is the time one access to that level takes.
//
// LEVEL picks the level:
//   0  registers: a chain of dependent fused multiply-adds, no memory at all
//   1  shared memory
//   2  L1: ordinary global loads, which sm_70 and later cache in L1
//   3  L2: global loads that skip L1 (ld.global.cg, what __ldcg emits)
//   4  HBM: as 3, with the visited nodes pushed out of the L2 before the timing
//   5  the constant cache: a __constant__ table
//
// Every memory level uses the same chain: nodes 128 bytes apart, one per cache line, node i
// holding the address of node (A * i + C) mod NODES. With NODES a power of two, A % 4 == 1
// and C odd, that map is one cycle through every node (a full-period linear congruential
// generator), so the chase from node 0 visits all of them, in a scattered order, before it
// comes back. The kernel builds the chain itself: a lesson's buffers hold no such pattern.
//
// The global levels take the size of their set as `set_bytes`, a size of the lesson's
// problem (a run on the CPU interpreter checks them over smaller sets); shared memory's is
// the compile-time SET_BYTES, the size of its array.
//
// Lane 0 times ITERS steps with clock64 (SM cycles) and %globaltimer (nanoseconds) and
// writes both totals; the lesson divides them by ITERS. It also writes 1 to `ok` when the
// chase ended on the node the arithmetic predicts, so every level writes the same output.

#ifndef LEVEL
#define LEVEL 0
#endif
#ifndef ITERS
#define ITERS 4096        // timed steps
#endif
#ifndef SET_BYTES
#define SET_BYTES 16384   // the shared memory a chain's nodes are spread over
#endif

#define NODE_BYTES 128
#define NODE_WORDS (NODE_BYTES / 8)
#define NODES (SET_BYTES / NODE_BYTES)
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

// The "memory" clobbers keep the compiler from moving loads and stores across the clock
// reads; they cost no instruction.
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

#if LEVEL == 5
// A table of 64 words (256 bytes, well inside the constant cache); entry i holds the byte
// offset of entry next(i). Written out by the preprocessor so the chain needs no setup.
#define CNODES 64
#define CE(i) ((((i) * LCG_A + LCG_C) & (CNODES - 1)) * 4u)
#define CE4(i) CE(i), CE(i + 1), CE(i + 2), CE(i + 3)
#define CE16(i) CE4(i), CE4(i + 4), CE4(i + 8), CE4(i + 12)
__constant__ unsigned ctable[CNODES] = {CE16(0), CE16(16), CE16(32), CE16(48)};
#endif

extern "C" __global__ void chase(unsigned long long* nodes, unsigned* flush, int flush_words,
                                 unsigned* ok, unsigned long long* cycles,
                                 unsigned long long* nanos, float a, float b,
                                 unsigned set_bytes)
{
    const unsigned lane = threadIdx.x & 31;
    unsigned long long t0 = 0, t1 = 0, g0 = 0, g1 = 0;
    bool right = false;

#if LEVEL == 0
    if (lane == 0) {
        // a and b are 1 at run time, unknown to the compiler: x counts the steps exactly.
        float x = 0.0f;
        g0 = nanos_now();
        t0 = cycles_now();
#pragma unroll 32
        for (int k = 0; k < ITERS; ++k)
            asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(a), "f"(b));
        t1 = cycles_now();
        g1 = nanos_now();
        right = x == (float)ITERS;
    }

#elif LEVEL == 1
    __shared__ unsigned s[SET_BYTES / 4];
    const unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (unsigned i = lane; i < NODES; i += 32)
        s[i * (NODE_BYTES / 4)] = base + next_node(i, NODES - 1) * NODE_BYTES;
    __syncwarp();
    if (lane == 0) {
        unsigned p = base;
        g0 = nanos_now();
        t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k)
            asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p) : : "memory");
        t1 = cycles_now();
        g1 = nanos_now();
        right = (p - base) / NODE_BYTES == predicted_end(NODES - 1);
    }

#elif LEVEL == 2 || LEVEL == 3 || LEVEL == 4
    const unsigned long long first = (unsigned long long)nodes;
    const unsigned mask = set_bytes / NODE_BYTES - 1;   // the node count is a power of two
#if LEVEL == 4
    // Only the nodes the timed chase visits are written: one thread could not walk all of
    // them in time. Then 192 MiB of other lines go through the L2, several times its size,
    // so the chain's lines are evicted and every step of the chase misses to HBM.
    if (lane == 0) {
        unsigned x = 0;
        for (int k = 0; k < ITERS; ++k) {
            unsigned nx = next_node(x, mask);
            nodes[(size_t)x * NODE_WORDS] = first + (unsigned long long)nx * NODE_BYTES;
            x = nx;
        }
    }
    for (int w = lane * 32; w < flush_words; w += 32 * 32) flush[w] = w;
    __threadfence();
    unsigned long long sink = 0;
#else
    for (unsigned i = lane; i <= mask; i += 32)
        nodes[(size_t)i * NODE_WORDS] = first + (unsigned long long)next_node(i, mask) * NODE_BYTES;
    __threadfence_block();
    __syncwarp();
    // Warm-up: the whole warp reads every node once, through the same path as the chase,
    // so the timed pass finds all of its lines in place. The loads are independent and
    // overlap; `sink` keeps them from being dropped.
    unsigned long long sink = 0;
#pragma unroll 8
    for (unsigned i = lane; i <= mask; i += 32) {
        unsigned long long v;
        const unsigned long long* q = nodes + (size_t)i * NODE_WORDS;
#if LEVEL == 2
        asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(q) : "memory");
#else
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(q) : "memory");
#endif
        sink ^= v;
    }
#endif
    __syncwarp();
    if (lane == 0) {
        unsigned long long p = first;
        g0 = nanos_now();
        t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k) {
#if LEVEL == 2
            asm volatile("ld.global.u64 %0, [%0];" : "+l"(p) : : "memory");
#else
            asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p) : : "memory");
#endif
        }
        t1 = cycles_now();
        g1 = nanos_now();
        // Device addresses are far below 2^63, so their xor never has the top bit set.
        right = (p - first) / NODE_BYTES == predicted_end(mask) && (sink >> 63) == 0;
    }

#elif LEVEL == 5
    if (lane == 0) {
        unsigned off = 0;
        // One lap of the 64-entry cycle brings the table into the constant cache and ends
        // where it began.
        for (int k = 0; k < CNODES; ++k)
            off = *(const unsigned*)((const char*)ctable + off);
        g0 = nanos_now();
        t0 = cycles_now();
#pragma unroll 16
        for (int k = 0; k < ITERS; ++k)
            off = *(const unsigned*)((const char*)ctable + off);
        t1 = cycles_now();
        g1 = nanos_now();
        right = off / 4 == predicted_end(CNODES - 1);
    }
#endif

    if (lane == 0) {
        cycles[0] = t1 - t0;
        nanos[0] = g1 - g0;
        ok[0] = right ? 1u : 0u;
    }
}
