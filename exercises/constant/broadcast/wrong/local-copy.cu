// wrong: [token use] sums from a private copy of the table (local memory), keeping the constant reads for show
// caught by: yours local.bytes == 0
// on: cpu
#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned loc[TABLE];
#pragma unroll 1
    for (unsigned j = 0; j < TABLE; ++j) loc[j] = table[j];
    unsigned x = in[i], dummy = 0;
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned j = 0; j < TABLE; ++j) {
            sum += loc[j] ^ x;
            dummy += table[j];
        }
        x = sum;
    }
    out[i] = x;
    if (rounds < 0) out[i] = dummy;
}
