// The stream's loads carry an L2 cache policy made with createpolicy: evict first, for
// every line they bring in. The L2 then gives up the stream's lines before the table's,
// which stay ordinary, and the table is still there when the walk comes back to it.
//
// Thread t < threads adds up, over `steps` steps, the four words of cold[(2 s) * threads + t],
// cold[(2 s + 1) * threads + t] and hot[h] (h from t, growing by threads, wrapping at hot_n).

__device__ __forceinline__ uint4 load_evict_first(const uint4* p, unsigned long long policy)
{
    uint4 v;
    asm("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
    return v;
}

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= threads) return;
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    unsigned sum = 0;
    unsigned h = tid;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        uint4 c = load_evict_first(cold + (size_t)(2 * s) * threads + tid, policy);
        uint4 d = load_evict_first(cold + (size_t)(2 * s + 1) * threads + tid, policy);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
