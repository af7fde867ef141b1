// wrong: [token use] reads slice 0 from the __constant__ table, one address per request, and the other 31 slices from the global copy tbl in each lane's own order.
// caught by: yours global.requests at most 1.1x solution
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
        // Slice 0: the same words in every lane, so the constant cache broadcasts them.
#pragma unroll
        for (unsigned m = 0; m < TABLE / 32; ++m) sum += table[32 * m] ^ x;
        // Slices 1..31, each lane starting at its own one: every lane still meets each
        // slice once, read through the L1 from the global copy.
#pragma unroll 1
        for (unsigned c = 0; c < 31; ++c) {
            const unsigned* slice = tbl + 1 + (c + lane) % 31;
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += __ldg(slice + 32 * m) ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
