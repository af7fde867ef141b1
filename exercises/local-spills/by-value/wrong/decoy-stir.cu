// wrong: [token use] calls stir_group by value for every group, but on a copy whose result is masked away (`& (rounds >> 31)`, always 0), while the caller stirs the group inline: the calls and the instructions inside them are the solution's, and none of it reaches the output
// caught by: yours calls.feed_output_pct == 100
// on: cpu
#define GROUPS 8

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

// Looks like the by-value function; its stirs go to a scratch copy whose trace is masked
// out by a word that is 0 for every valid launch (the sign bit of rounds).
__device__ __noinline__ uint4 stir_group(uint4 g, unsigned next, unsigned mask)
{
    uint4 t = g;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        t.x = stir(t.x, t.y);
        t.y = stir(t.y, t.z);
        t.z = stir(t.z, t.w);
        t.w = stir(t.w, next);
    }
    g.x ^= t.x & mask;
    g.y ^= t.y & mask;
    g.z ^= t.z & mask;
    g.w ^= t.w & mask;
    return g;
}

extern "C" __global__ void stir_groups(const unsigned* __restrict__ in,
                                       unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned mask = (unsigned)rounds >> 31;   // 0 for any rounds >= 0

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
        for (int q = 0; q < GROUPS; ++q) {
            g[q] = stir_group(g[q], g[(q + 1) % GROUPS].x, mask);   // a no-op on g
            unsigned nx = g[(q + 1) % GROUPS].x;
            g[q].x = stir(g[q].x, g[q].y);
            g[q].y = stir(g[q].y, g[q].z);
            g[q].z = stir(g[q].z, g[q].w);
            g[q].w = stir(g[q].w, nx);
        }
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
