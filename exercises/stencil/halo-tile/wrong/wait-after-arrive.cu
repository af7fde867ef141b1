// wrong: [block race] interior blocks bulk-copy the right halo on one mbarrier; the tile is ordered by a second, warp-aggregated mbarrier, and warp 0's lane 0 waits for the copy only after its warp arrived on the second: the phase the last warp waits on was completed by arrivals made before anyone saw the copy
// caught by: race
// on: cpu
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ void wait_parity(unsigned sb, unsigned parity)
{
    unsigned done = 0;
    while (!done) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(sb), "r"(parity) : "memory");
    }
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ __align__(16) float tile[BLOCK + 2 * R];
    __shared__ __align__(8) unsigned long long bar, tma;
    const int t = threadIdx.x;
    const int b = blockIdx.x * BLOCK;
    const int i = b + t;
    const bool interior = b + BLOCK + R <= n;
    const unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
    const unsigned st = (unsigned)__cvta_generic_to_shared(&tma);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sb), "r"(BLOCK / 32) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(st) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (interior && t == 0) {
        const unsigned sd = (unsigned)__cvta_generic_to_shared(tile + BLOCK + R);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(st), "r"(R * 4) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(sd), "l"(in + b + BLOCK), "r"(R * 4), "r"(st) : "memory");
    }
    tile[t + R] = at(in, i, n);
    if (t < R) tile[t] = at(in, i - R, n);
    if (!interior && t < R) tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    __syncwarp();
    if ((t & 31) == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sb) : "memory");
    if (interior && t == 0) wait_parity(st, 0);   // the halo has landed
    wait_parity(sb, 0);
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
