// wrong: [hidden trace] block 0 gives its lanes neighbouring elements; every other block deals its 256 elements out 8 apart, so a warp's lanes land 128 bytes apart, one sector each, where a trace of block 0 alone would not look
// caught by: yours global.sectors_per_request at most 1.01x solution
// on: cpu
// Thread t < threads adds up, over `steps` steps, the four words of cold[(2 s) * threads + t],
// cold[(2 s + 1) * threads + t] and hot[h] (h from t, growing by threads, wrapping at hot_n).
// The stream's loads are marked evict-first (__ldcs), the table's are ordinary.

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    // Inside a block of 256, thread x takes element (x % 32) * 8 + x / 32: still each
    // element of the block once.
    const unsigned x = threadIdx.x;
    const unsigned local = blockIdx.x == 0 ? x : (x % 32) * 8 + x / 32;
    const int tid = blockIdx.x * blockDim.x + local;
    if (tid >= threads) return;
    unsigned sum = 0;
    unsigned h = tid;
#pragma unroll 4
    for (int s = 0; s < steps; ++s) {
        uint4 c = __ldcs(cold + (size_t)(2 * s) * threads + tid);
        uint4 d = __ldcs(cold + (size_t)(2 * s + 1) * threads + tid);
        uint4 t = __ldcg(hot + h);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w + t.x + t.y + t.z + t.w;
        h += threads;
        if (h >= hot_n) h -= hot_n;
    }
    out[tid] = sum;
}
