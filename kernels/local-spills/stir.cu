// Every variant computes the same function: each thread seeds 32 private words from in[i],
// stirs them for `rounds` rounds and writes their XOR to out[i]. Only the way the 32 words
// are held changes, and with it where the compiler can keep them.

#define MODE_DYNAMIC 0  // an array indexed by a value known only at run time
#define MODE_STATIC 1   // the same array, every index a compile-time constant
#define MODE_ADDR 2     // eight groups of four, handed to a function by pointer
#define MODE_VALUE 3    // the same groups, handed to that function by value

#ifndef MODE
#define MODE MODE_STATIC
#endif

#define WORDS 32
#define GROUPS (WORDS / 4)

// One step: a word takes in its right-hand neighbour. Integer arithmetic wraps exactly, so
// every variant gets the very same bits.
__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __forceinline__ unsigned seed(unsigned x, int j)
{
    return x + (unsigned)j * 16777619u;
}

#if MODE == MODE_ADDR
// Kept out of line so that the pointer really leaves the kernel: the group it points at
// must then live at an address, and registers have none.
__device__ __noinline__ void stir_group_ptr(uint4* g, unsigned next)
{
    g->x = stir(g->x, g->y);
    g->y = stir(g->y, g->z);
    g->z = stir(g->z, g->w);
    g->w = stir(g->w, next);
}
#endif

#if MODE == MODE_VALUE
// The same function, but the group travels in registers and comes back as the result.
__device__ __noinline__ uint4 stir_group_val(uint4 g, unsigned next)
{
    g.x = stir(g.x, g.y);
    g.y = stir(g.y, g.z);
    g.z = stir(g.z, g.w);
    g.w = stir(g.w, next);
    return g;
}
#endif

extern "C" __global__ void stir_words(const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned result = 0;

#if MODE == MODE_DYNAMIC || MODE == MODE_STATIC
    unsigned w[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j] = seed(x, j);

#if MODE == MODE_DYNAMIC
    // One flat loop over every step: j is only known at run time, so w[] needs addresses.
#pragma unroll 1
    for (int k = 0; k < rounds * WORDS; ++k) {
        int j = k & (WORDS - 1);
        w[j] = stir(w[j], w[(j + 1) & (WORDS - 1)]);
    }
#else
    // The same steps in the same order; unrolling the inner loop makes each j a constant.
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }
#endif

#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];

#else
    uint4 g[GROUPS];
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) {
        g[q].x = seed(x, 4 * q);
        g[q].y = seed(x, 4 * q + 1);
        g[q].z = seed(x, 4 * q + 2);
        g[q].w = seed(x, 4 * q + 3);
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) {
            // For the last group this is g[0].x already stirred in this round, just as
            // word 31 sees the new word 0 in the flat loop.
            unsigned next = g[(q + 1) % GROUPS].x;
#if MODE == MODE_ADDR
            stir_group_ptr(&g[q], next);
#else
            g[q] = stir_group_val(g[q], next);
#endif
        }
    }
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
#endif

    out[i] = result;
}
