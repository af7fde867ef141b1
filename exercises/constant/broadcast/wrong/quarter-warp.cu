// wrong: [slow-variant timing] lanes agree only in groups of eight, (c ^ (lane >> 3)): four addresses per request, some 8x faster than const-divergent yet four times the constant cache's work of the solution.
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
            const unsigned* slice = table + (c ^ (lane >> 3));
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
