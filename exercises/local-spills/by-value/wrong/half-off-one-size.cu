// wrong: [one size] the whole group is stirred out of line only from n = 2^20 on, where the lesson's size and the main trace are; at the smaller sizes the function stirs half of it and the caller the rest inline
// caught by: yours calls.work_pct at least 0.9x solution
// on: cpu
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

__device__ __noinline__ uint4 stir_pair(uint4 g, unsigned next)
{
    g.x = stir(g.x, g.y);
    g.y = stir(g.y, g.z);
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
        for (int q = 0; q < GROUPS; ++q) {
            const unsigned next = g[(q + 1) % GROUPS].x;
            if (n >= (1 << 20)) {
                g[q] = stir_group(g[q], next);
            } else {
                uint4 h = stir_pair(g[q], next);
                h.z = stir(g[q].z, g[q].w);
                h.w = stir(g[q].w, next);
                g[q] = h;
            }
        }
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
