// wrong: [block race] an mbarrier of BLOCK / 32 arrivals, one lane arriving for its warp after a __syncwarp(), and lane 0 alone waiting on the phase: with no __syncwarp() after its wait, nothing hands lane 0's acquire to lanes 1-31, which read the neighbouring warps' words unordered
// caught by: race
// on: cpu
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    __shared__ __align__(8) unsigned long long bar;
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    const unsigned sb = (unsigned)__cvta_generic_to_shared(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sb), "r"(BLOCK / 32) : "memory");
    __syncthreads();
    tile[t + R] = at(in, i, n);
    if (t < R) {
        tile[t] = at(in, i - R, n);
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    __syncwarp();
    if ((t & 31) == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(sb) : "memory");
    if ((t & 31) == 0) {
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
