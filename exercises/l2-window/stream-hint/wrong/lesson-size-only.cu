// wrong: [one size] the evict-first hint only when threads == 262144 (the lesson's size, where times are taken); every other size loads the stream plainly
// caught by: yours faster than solution by >= 0.87x
// on: gpu - which lines the L2 keeps shows only in the time, here at the sizes other than the lesson's
template <bool HINT>
__device__ __forceinline__ void hot_and_cold_body(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= threads) return;
    unsigned sum = 0;
    unsigned h = tid;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        uint4 c = HINT ? __ldcs(cold + (size_t)(2 * s) * threads + tid) : __ldcg(cold + (size_t)(2 * s) * threads + tid);
        uint4 d = HINT ? __ldcs(cold + (size_t)(2 * s + 1) * threads + tid) : __ldcg(cold + (size_t)(2 * s + 1) * threads + tid);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    // The hint only where the time is taken: the lesson's 262144 threads.
    if (threads == 262144) hot_and_cold_body<true>(hot, cold, out, hot_n, steps, threads);
    else hot_and_cold_body<false>(hot, cold, out, hot_n, steps, threads);
}
