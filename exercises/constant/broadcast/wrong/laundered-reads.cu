// wrong: [token use] computes each round from the table's bit counts, taken once (a sum of t ^ x over the table is a closed form in them), and still reads the table in every round in the same order, ANDing the reads' sum with 0 in inline asm so the compiler keeps them
// caught by: yours loads.unused_pct == 0
// on: cpu
// Every lane visits the slices in the same order, so at each step the whole warp reads
// one address of the table: the constant cache serves it once and broadcasts the word.

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned cnt[32];
#pragma unroll
    for (int b = 0; b < 32; ++b) cnt[b] = 0;
#pragma unroll 1
    for (unsigned j = 0; j < TABLE; ++j) {
        const unsigned w = table[j];
#pragma unroll
        for (int b = 0; b < 32; ++b) cnt[b] += (w >> b) & 1u;
    }
    for (int r = 0; r < rounds; ++r) {
        unsigned junk = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* slice = table + c;
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) junk += slice[32 * m];
        }
        unsigned zero;
        asm("and.b32 %0, %1, 0;" : "=r"(zero) : "r"(junk));
        unsigned sum = zero;
#pragma unroll
        for (int b = 0; b < 32; ++b) sum += (((x >> b) & 1u) ? (TABLE - cnt[b]) : cnt[b]) << b;
        x = sum;
    }
    out[i] = x;
}
