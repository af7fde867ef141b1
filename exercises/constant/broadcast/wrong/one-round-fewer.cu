// wrong: [one size] a round left out where n is large (31 of 32 at the lesson's size): past five rounds the sums no longer depend on the input, so the output is the solution's there, from fewer reads of the table
// caught by: yours constant.words at least 0.99x solution
// on: cpu
// Each thread runs `rounds` rounds; in each it adds up every word of the 256-word
// __constant__ table, each XORed with its running value. The table is visited as 32
// slices of 8 words (slice c holds words c, c + 32, c + 64, ...); the sum does not depend
// on the order in which the slices are visited.

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    for (int r = 0; r < (n > 65536 ? rounds - 1 : rounds); ++r) {
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
