// wrong: [token use] reads the table as uniform broadcasts only every third round; the other rounds rebuild the sum from the table's bit counts (the sum of t ^ x is the sum over bits b of 2^b times the count of words whose bit b differs from x's), so two rounds of three read no constant word
// caught by: yours constant.words at least 0.99x solution
// on: cpu
#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned c[32];
#pragma unroll
    for (int b = 0; b < 32; ++b) c[b] = 0;
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
        if (r % 3 == 0) {
#pragma unroll 8
            for (unsigned w = 0; w < TABLE; ++w) {
                unsigned v = table[w];
                sum += v ^ x;
                if (r == 0) {
#pragma unroll
                    for (int b = 0; b < 32; ++b) c[b] += (v >> b) & 1u;
                }
            }
        } else {
#pragma unroll
            for (int b = 0; b < 32; ++b)
                sum += (((x >> b) & 1u) ? (TABLE - c[b]) : c[b]) << b;
        }
        x = sum;
    }
    out[i] = x;
}
