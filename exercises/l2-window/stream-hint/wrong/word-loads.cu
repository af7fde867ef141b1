// wrong: [slow-variant timing] marks the stream evict-first as the solution does, so the table stays resident, but reads the stream a word at a time (__ldcs on unsigned): four requests for each uint4, each spanning the same 16 sectors as the uint4's one request, three times the solution's sectors for the same bytes
// caught by: yours global.sectors at most 1.05x solution
// on: cpu
// A hot table read again and again while a cold stream passes through the L2 once, as in
// the lesson, launched with no access-policy window. Each step, thread t < threads reads
// two uint4s of the cold stream (the next part of it, never read again) and one of the hot
// table (walked from the start again every hot_n / threads steps), and adds up their words.
//
// The stream's loads are marked evict-first (__ldcs, "cache streaming"): the L2 then
// gives up the stream's lines before the table's, and the table stays resident without a
// window. The table's loads stay ordinary L2 loads (__ldcg skips L1).
// Here the stream's words are loaded one by one, with the scalar form of __ldcs: a warp's
// load of word w names 32 words 16 bytes apart, 16 sectors of which it uses a quarter, and
// the next three loads name the same 16 sectors again.

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
        const unsigned* c4 = (const unsigned*)(cold + (size_t)(2 * s) * threads + tid);
        const unsigned* d4 = (const unsigned*)(cold + (size_t)(2 * s + 1) * threads + tid);
        uint4 c = make_uint4(__ldcs(c4), __ldcs(c4 + 1), __ldcs(c4 + 2), __ldcs(c4 + 3));
        uint4 d = make_uint4(__ldcs(d4), __ldcs(d4 + 1), __ldcs(d4 + 2), __ldcs(d4 + 3));
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
