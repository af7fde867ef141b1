// wrong: [unchecked structure] stir_group stirs two groups a call, 4 calls a round; 4 calls of an out-of-line function that returns 0 (its argument ANDed away), XORed into a group, make the count of calls up to the solution's, and its result reaches the output as the real function's does
// caught by: yours calls at least 1x solution
// on: cpu
#define GROUPS 8
__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}
struct Pair { uint4 a, b; };
__device__ __noinline__ Pair stir_group(uint4 a, uint4 b, unsigned next)
{
    Pair p;
    p.a.x = stir(a.x, a.y); p.a.y = stir(a.y, a.z); p.a.z = stir(a.z, a.w); p.a.w = stir(a.w, b.x);
    p.b.x = stir(b.x, b.y); p.b.y = stir(b.y, b.z); p.b.z = stir(b.z, b.w); p.b.w = stir(b.w, next);
    return p;
}
__device__ __noinline__ unsigned tick(unsigned v) { unsigned r; asm volatile("mov.u32 %0, 0;" : "=r"(r)); return r + (v & 0); }
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
        for (int p = 0; p < GROUPS / 2; ++p) {
            Pair s = stir_group(g[2 * p], g[2 * p + 1], g[(2 * p + 2) % GROUPS].x);
            g[2 * p] = s.a; g[2 * p + 1] = s.b;
            g[2 * p].x ^= tick(g[2 * p].y);
        }
    }
    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
