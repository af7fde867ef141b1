// wrong: [token use] the function stirs three of the group's four words and the caller the fourth inline, the function padded with twelve `asm` adds of 0 so that its share of the instructions reads 1.04x the solution's (a red team's, passing every CPU check): the caller's own instructions cannot be padded down, 1.195x the solution's
// caught by: yours calls.outside_steps at most 1.1x solution
// on: cpu
#define GROUPS 8
__device__ __forceinline__ unsigned stir(unsigned a, unsigned b) { return (a ^ (b >> 5)) * 2654435761u + b; }
__device__ __noinline__ uint4 stir_group(uint4 g, unsigned next)
{
    g.x = stir(g.x, g.y); g.y = stir(g.y, g.z); g.z = stir(g.z, g.w);
    asm volatile("add.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;" : "+r"(g.w));
    asm volatile("add.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;\n\tadd.u32 %0, %0, 0;" : "+r"(g.z));
    return g;
}
extern "C" __global__ void stir_groups(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    uint4 g[GROUPS];
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) {
        g[q].x = x + (unsigned)(4 * q) * 16777619u; g[q].y = x + (unsigned)(4 * q + 1) * 16777619u;
        g[q].z = x + (unsigned)(4 * q + 2) * 16777619u; g[q].w = x + (unsigned)(4 * q + 3) * 16777619u;
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) {
            unsigned next = g[(q + 1) % GROUPS].x;
            g[q] = stir_group(g[q], next);
            g[q].w = stir(g[q].w, next);
        }
    }
    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q].x ^ g[q].y ^ g[q].z ^ g[q].w;
    out[i] = result;
}
