// wrong: [off the point] reads the same table from global memory (the buffer tbl) in each lane's own order, so nothing goes through the constant cache at all.
// caught by: yours constant.distinct_per_request == 1
// on: cpu

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lane = threadIdx.x & 31;
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* slice = tbl + (c ^ lane);
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
