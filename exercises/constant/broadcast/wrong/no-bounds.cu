// wrong: [unbounded] visits the slices in the same order in every lane but drops the test against n, so the last block reads and writes past the end.
// caught by: correct
// on: cpu

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* slice = table + c;
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
