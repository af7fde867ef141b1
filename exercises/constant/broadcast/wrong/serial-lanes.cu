// wrong: [slow-variant timing] keeps each lane's own walk of the table but lets one lane read at a time, so every constant request names one address, as the broadcast's do, in 32 times the solution's requests: faster than the divergent walk, far slower than the solution
// caught by: yours constant.requests at most 1.1x solution
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
#pragma unroll 1
            for (unsigned l = 0; l < 32; ++l) {
                if (l == lane) {
                    const unsigned* slice = table + (c ^ lane);
#pragma unroll
                    for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
                }
                __syncwarp(__activemask());
            }
        }
        x = sum;
    }
    out[i] = x;
}
