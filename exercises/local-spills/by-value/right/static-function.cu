// right: the by-value function declared `static`: internal linkage, so its mangled name is nested in the file's namespace, and still out of line
// The function takes its group by value and returns the stirred group: nothing of the
// caller's has its address taken, so the groups stay in registers across the call (still
// not inlined).

#define GROUPS 8

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

static __device__ __noinline__ uint4 stir_group(uint4 g, unsigned next)
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
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) g[q] = stir_group(g[q], g[(q + 1) % GROUPS].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
