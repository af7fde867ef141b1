// Every lane walks the table from word 0 to word 255 in one loop: the index is the loop
// counter, which the whole warp shares, so each read names one address and the constant
// cache broadcasts it.

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 8
        for (unsigned j = 0; j < TABLE; ++j) sum += table[j] ^ x;
        x = sum;
    }
    out[i] = x;
}
