// wrong: [token use] the first five groups of the first round are stirred by an inlined copy, not the out-of-line function the task keeps for every group of every round: 9% of the calls left out at rounds = 7, and 0.998x the solution's at the lesson's size, where the work share and the caller's steps move by 0.1%
// caught by: yours calls at least 1x solution
// on: cpu
#ifndef INL
#define INL 5
#endif
// Each thread stirs 32 private words, kept as 8 groups of 4, for `rounds` rounds, and
// writes their XOR. A function that is deliberately not inlined stirs one group; it gets
// the group through a pointer.

#define GROUPS 8

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __noinline__ uint4 stir_group(uint4 g, unsigned next)
{
    g.x = stir(g.x, g.y);
    g.y = stir(g.y, g.z);
    g.z = stir(g.z, g.w);
    g.w = stir(g.w, next);
    return g;
}
__device__ __forceinline__ uint4 stir_inline(uint4 g, unsigned next)
{
    g.x = stir(g.x, g.y);
    g.y = stir(g.y, g.z);
    g.z = stir(g.z, g.w);
    g.w = stir(g.w, next);
    return g;
}

extern "C" __global__ void stir_groups(const unsigned* __restrict__ in,
                                       unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];

    uint4 g[GROUPS];
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) {
        g[q].x = x + (unsigned)(4 * q) * 16777619u;
        g[q].y = x + (unsigned)(4 * q + 1) * 16777619u;
        g[q].z = x + (unsigned)(4 * q + 2) * 16777619u;
        g[q].w = x + (unsigned)(4 * q + 3) * 16777619u;
    }
    // Round 0: the first INL groups stirred inline, not called.
#pragma unroll
    for (int q = 0; q < GROUPS; ++q)
        g[q] = q < INL ? stir_inline(g[q], g[(q + 1) % GROUPS].x) : stir_group(g[q], g[(q + 1) % GROUPS].x);
    for (int r = 1; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) g[q] = stir_group(g[q], g[(q + 1) % GROUPS].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
