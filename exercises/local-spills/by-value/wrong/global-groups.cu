// wrong: [off the point] keeps the pointer but points it into a global array of every thread's groups: no stack frame, still out of line, but every stir reads and writes global memory
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
// The function takes its group by value and returns the stirred group: nothing of the
// caller's has its address taken, so the groups stay in registers across the call (still
// not inlined).

#define GROUPS 8
#define MAX_N 1048576

// The groups of every thread the lesson launches, group q of all threads side by side.
__device__ uint4 groups[GROUPS * MAX_N];

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __noinline__ void stir_group(uint4* g, unsigned next)
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

    uint4* g = groups + i;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) {
        g[q * MAX_N].x = x + (unsigned)(4 * q) * 16777619u;
        g[q * MAX_N].y = x + (unsigned)(4 * q + 1) * 16777619u;
        g[q * MAX_N].z = x + (unsigned)(4 * q + 2) * 16777619u;
        g[q * MAX_N].w = x + (unsigned)(4 * q + 3) * 16777619u;
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) stir_group(&g[q * MAX_N], g[((q + 1) % GROUPS) * MAX_N].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= g[q * MAX_N].x ^ g[q * MAX_N].y ^ g[q * MAX_N].z ^ g[q * MAX_N].w;
    out[i] = result;
}
