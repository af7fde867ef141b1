// The working-set staircase. Every thread of a fixed grid reads `per` uint4s of a working
// set per pass, `passes` times over; the lesson picks the two so that every variant reads
// the same bytes in all, from a working set of a different size. A block of lanes reads 512
// contiguous bytes per request (coalesced), and the loads bypass L1 (`__ldcg`) so that a
// small set is served by L2, not by each SM's own L1.
//
// Each pass starts one step further along the thread's elements: the addresses differ from
// pass to pass, so the compiler cannot fold one pass's loads into another's, and the thread
// still meets each of its elements once per pass. The buffer holds ones, so each thread's
// sum is 4 x per x passes: the same for every working set the lesson sweeps.

extern "C" __global__ void read_set(const uint4* __restrict__ data,
                                    unsigned* __restrict__ out,
                                    int per, int passes)
{
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned sum = 0;
    for (int p = 0; p < passes; ++p) {
        int k = p % per;
#pragma unroll 4
        for (int n = 0; n < per; ++n) {
            uint4 v = __ldcg(data + (size_t)k * threads + tid);
            sum += v.x + v.y + v.z + v.w;
            k = (k + 1 == per) ? 0 : k + 1;
        }
    }
    out[tid] = sum;
}
