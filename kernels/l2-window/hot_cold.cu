// A hot table read again and again while a cold stream passes through the L2 once.
// Each step, every thread reads two uint4s of the cold buffer (the next part of the stream,
// never read again) and one uint4 of the hot table (the table is walked from the start once
// every hot_n / threads steps). Both go through L2 only (__ldcg), so the L2 is the only cache
// that can keep the table.
//
// Between two reads of one table line the stream brings in twice as many new bytes as the
// table holds: with a table of 24 MiB that is 72 MiB of traffic in all, more than a 50 MiB L2
// holds, so the table is evicted before it comes back. An access-policy window marking the table
// persisting (the lesson's l2_window) keeps its lines out of the stream's way.
// Both buffers hold ones, so each thread's sum is 12 per step, for every variant.

extern "C" __global__ void hot_and_cold(const uint4* __restrict__ hot,
                                        const uint4* __restrict__ cold,
                                        unsigned* __restrict__ out,
                                        unsigned hot_n, int steps)
{
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned sum = 0;
    unsigned h = tid;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        uint4 c = __ldcg(cold + (size_t)(2 * s) * threads + tid);
        uint4 d = __ldcg(cold + (size_t)(2 * s + 1) * threads + tid);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
