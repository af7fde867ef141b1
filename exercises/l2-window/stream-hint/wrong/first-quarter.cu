// wrong: [token use] marks the stream's loads evict-first only in the first quarter of the steps; the other three quarters load it as plain does and push the table out
// caught by: yours faster than solution by >= 0.87x
// on: gpu - which lines the L2 keeps shows only in the time
// Thread t < threads adds up, over `steps` steps, the four words of cold[(2 s) * threads + t],
// cold[(2 s + 1) * threads + t] and hot[h] (h from t, growing by threads, wrapping at hot_n).

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= threads) return;
    unsigned sum = 0;
    unsigned h = tid;
    const int hinted = steps / 4;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        const uint4* pc = cold + (size_t)(2 * s) * threads + tid;
        const uint4* pd = cold + (size_t)(2 * s + 1) * threads + tid;
        uint4 c = s < hinted ? __ldcs(pc) : __ldcg(pc);
        uint4 d = s < hinted ? __ldcs(pd) : __ldcg(pd);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
