// wrong: [block race] the halo's mbarrier (2 arrivals) first completes phase 0 by one plain arrival of count 2 from thread 0, then lane 0 arms it with expect_tx and issues the bulk copy, which completes phase 1; every thread then waits on parity 0, the phase already complete, so on a GPU the wait returns at once and the halo is read before the copy lands
// caught by: race
// on: cpu
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ __align__(16) float tile[BLOCK + 2 * R];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x;
    const int b = blockIdx.x * BLOCK;
    const int i = b + t;
    const bool interior = b + BLOCK + R <= n;
    const unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
    tile[t + R] = at(in, i, n);
    if (t < R) tile[t] = at(in, i - R, n);
    if (interior) {
        if (t == 0) {
            const unsigned sd = (unsigned)__cvta_generic_to_shared(tile + BLOCK + R);
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"(sb) : "memory");
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0], 2;" :: "r"(sb) : "memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sb), "r"(R * 4) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(sd), "l"(in + b + BLOCK), "r"(R * 4), "r"(sb) : "memory");
        }
    } else if (t < R) {
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    __syncthreads();
    if (interior) {
        unsigned done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(sb) : "memory");
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
