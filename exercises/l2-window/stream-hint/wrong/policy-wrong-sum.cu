// wrong: [wrong output] the hot word counted twice and the last step left out, behind loads that take an L2 evict-first policy made by createpolicy: the output must be right whatever the policy
// caught by: correct
// on: cpu
// A hot table read again and again while a cold stream passes through the L2 once, as in
// the lesson, launched with no access-policy window.
//
// Thread t < threads adds up, over `steps` steps, the four words of each of:
//   - two uint4s of the cold stream: cold[(2 s) * threads + t] and cold[(2 s + 1) * threads + t]
//   - one uint4 of the hot table: hot[h], where h starts at t, grows by `threads` each
//     step and wraps round at hot_n
// and writes the sum to out[t].

__device__ __forceinline__ uint4 ld_first(const uint4* p)
{
    uint4 v;
    unsigned long long pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(pol));
    return v;
}
__device__ __forceinline__ unsigned w4(uint4 v) { return v.x + v.y + v.z + v.w; }

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    unsigned sum = 0;
    unsigned h = t % hot_n;
    for (int s = 0; s < steps; ++s) {
        sum += (s + 1 == steps ? 0u : 1u) * w4(ld_first(cold + (size_t)(2 * s) * threads + t)) + w4(ld_first(cold + (size_t)(2 * s + 1) * threads + t)) + 2u * w4(hot[h]);
        h += threads;
        while (h >= hot_n) h -= hot_n;
    }
    out[t] = sum;
}
