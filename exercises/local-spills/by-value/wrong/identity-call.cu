// wrong: [token use] keeps stir_group out of line and calls it for every group of every round, but as an identity on one word: the stirring is inlined beside the call, so the calls are the solution's and the function does none of the work
// caught by: yours slower than solution by >= 0.7x
// on: gpu - its calls, stack frame and traffic are the solution's; only the time tells
// Each thread stirs 32 private words, kept as 8 groups of 4, for `rounds` rounds, and
// writes their XOR. A function that is deliberately not inlined stirs one group; it gets
// the group through a pointer.

#define GROUPS 8

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __noinline__ unsigned stir_group(unsigned next) { return next; }

__device__ __forceinline__ void stir_inline(uint4* g, unsigned next)
{
    g->x = stir(g->x, g->y);
    g->y = stir(g->y, g->z);
    g->z = stir(g->z, g->w);
    g->w = stir(g->w, next);
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
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) stir_inline(&g[q], stir_group(g[(q + 1) % GROUPS].x));
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
