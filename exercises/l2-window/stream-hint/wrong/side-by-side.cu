// wrong: [wrong output] reads each thread's two stream uint4s next to each other, not a whole row apart: other elements than the sum asks for, and every request spans twice the sectors
// caught by: yours global.sectors_per_request at most 1.01x solution
// on: cpu
// A hot table read again and again while a cold stream passes through the L2 once, as in
// the lesson, launched with no access-policy window. Each step, thread t < threads reads
// two uint4s of the cold stream (the next part of it, never read again) and one of the hot
// table (walked from the start again every hot_n / threads steps), and adds up their words.
//
// The stream's loads are marked evict-first (__ldcs, "cache streaming"): the L2 then
// gives up the stream's lines before the table's, and the table stays resident without a
// window. The table's loads stay ordinary L2 loads (__ldcg skips L1).

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
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
        uint4 c = __ldcs(cold + 2 * ((size_t)s * threads + tid));
        uint4 d = __ldcs(cold + 2 * ((size_t)s * threads + tid) + 1);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
