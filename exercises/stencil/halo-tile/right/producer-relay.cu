// right: interior blocks bulk-copy the right halo; thread 0 waits on the copy's mbarrier (acquire), then arrives (release) on a second mbarrier of one arrival, on which the last warp (the halo's readers) waits without arriving: the producer/consumer hand-over
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ __align__(16) float tile[BLOCK + 2 * R];
    __shared__ __align__(8) unsigned long long bar;
    __shared__ __align__(8) unsigned long long ready;
    const int t = threadIdx.x;
    const int b = blockIdx.x * BLOCK;
    const int i = b + t;
    const bool interior = b + BLOCK + R <= n;
    const unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
    const unsigned sr = (unsigned)__cvta_generic_to_shared(&ready);
    tile[t + R] = at(in, i, n);
    if (t < R) tile[t] = at(in, i - R, n);
    if (interior) {
        if (t == 0) {
            const unsigned sd = (unsigned)__cvta_generic_to_shared(tile + BLOCK + R);
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sb) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sr) : "memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sb), "r"(R * 4) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(sd), "l"(in + b + BLOCK), "r"(R * 4), "r"(sb) : "memory");
        }
    } else if (t < R) {
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    __syncthreads();
    if (interior && t == 0) {
        // the producer: wait for the copy, then hand the halo on through `ready`
        unsigned done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(sb) : "memory");
        }
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"(sr) : "memory");
    }
    if (interior && t >= BLOCK - 32) {
        // the consumer warp: wait (acquire) on `ready`, which the producer's arrival completes
        unsigned done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(sr) : "memory");
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
