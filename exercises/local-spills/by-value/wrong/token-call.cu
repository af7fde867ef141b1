// wrong: [token use] keeps stir_group out of line but calls it only where it never runs (rounds < 0), so the compiler keeps the function; the real stirring goes through an inlined copy of it
// caught by: yours calls at least 1x solution
// on: cpu
// The function takes its group by value and returns the stirred group: nothing of the
// caller's has its address taken, so the groups stay in registers across the call (still
// not inlined).

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

// The same stir, inlined: no call in the loop.
__device__ __forceinline__ uint4 stir_group_here(uint4 g, unsigned next)
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
    // Never taken, but the compiler cannot know: the function stays, out of line.
    if (rounds < 0) g[0] = stir_group(g[0], x);
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) g[q] = stir_group_here(g[q], g[(q + 1) % GROUPS].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
