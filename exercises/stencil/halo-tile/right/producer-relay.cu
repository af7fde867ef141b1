// right: producer relay: lane 0 of the last warp alone waits on the bulk copy's mbarrier, then a __syncwarp() hands what it acquired to its warp, whose lanes 24-31 read the halo
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
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sb) : "memory");
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sb), "r"(R * 4) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         :: "r"(sd), "l"(in + b + BLOCK), "r"(R * 4), "r"(sb) : "memory");
        }
    } else if (t < R) {
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    __syncthreads();
    if (interior && t == BLOCK - 32) {
        unsigned done = 0;
        while (!done) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(sb) : "memory");
        }
    }
    __syncwarp();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
