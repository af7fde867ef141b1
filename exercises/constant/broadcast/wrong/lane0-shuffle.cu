// wrong: [off the point] lane 0 alone reads each constant word and passes it to the warp by a shuffle: right, the constant requests the solution's, but the broadcast is done in registers, not by the constant cache
// caught by: yours shuffles == 0
// on: cpu
#define TABLE 256
__constant__ unsigned table[TABLE];
extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < n;
    unsigned lane = threadIdx.x & 31;
    unsigned x = live ? in[i] : 0;
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) {
                unsigned w = 0;
                if (lane == 0) w = table[c + 32 * m];
                w = __shfl_sync(0xffffffffu, w, 0);
                sum += w ^ x;
            }
        }
        x = sum;
    }
    if (live) out[i] = x;
}
