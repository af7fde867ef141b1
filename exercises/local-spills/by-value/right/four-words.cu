// The function takes the group's four words as four arguments and returns the stirred
// group: plain values, so nothing of the caller's needs an address and the groups stay in
// registers across the call (still not inlined).

#define GROUPS 8

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __noinline__ uint4 stir_group(unsigned a, unsigned b, unsigned c, unsigned d,
                                         unsigned next)
{
    const unsigned a2 = stir(a, b);
    const unsigned b2 = stir(b, c);
    const unsigned c2 = stir(c, d);
    return make_uint4(a2, b2, c2, stir(d, next));
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
        for (int q = 0; q < GROUPS; ++q) g[q] = stir_group(g[q].x, g[q].y, g[q].z, g[q].w, g[(q + 1) % GROUPS].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
