// wrong: [unchecked structure] keeps the pointer but parks the groups in shared memory, 128 bytes a thread (32 KiB a block): no stack frame, still out of line, but the groups live in shared memory, not registers
// caught by: yours smem == 0
// on: cpu
// The function takes its group by value and returns the stirred group: nothing of the
// caller's has its address taken, so the groups stay in registers across the call (still
// not inlined).

#define GROUPS 8

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

    // Group q of thread t at gs[q][t]: the groups of a warp side by side.
    __shared__ uint4 gs[GROUPS][256];
    const int t = threadIdx.x;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) {
        gs[q][t].x = x + (unsigned)(4 * q) * 16777619u;
        gs[q][t].y = x + (unsigned)(4 * q + 1) * 16777619u;
        gs[q][t].z = x + (unsigned)(4 * q + 2) * 16777619u;
        gs[q][t].w = x + (unsigned)(4 * q + 3) * 16777619u;
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int q = 0; q < GROUPS; ++q) stir_group(&gs[q][t], gs[(q + 1) % GROUPS][t].x);
    }

    unsigned result = 0;
#pragma unroll
    for (int q = 0; q < GROUPS; ++q) result ^= gs[q][t].x ^ gs[q][t].y ^ gs[q][t].z ^ gs[q][t].w;
    out[i] = result;
}
