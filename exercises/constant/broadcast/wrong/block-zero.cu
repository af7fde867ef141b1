// wrong: [hidden trace] only block 0 visits the slices in the same order in every lane; every other block keeps each lane's own order, 32 addresses per request.
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
    // Block 0 is the one a sampled trace looks at first.
    unsigned key = blockIdx.x == 0 ? 0 : (threadIdx.x & 31);
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* slice = table + (c ^ key);
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
