// wrong: [off the point] has thread 0 copy the table into shared memory with uniform constant reads, then every lane reads the shared copy in its own order: the rounds never touch the constant cache.
// caught by: yours smem == 0
// on: cpu

#define TABLE 256

__constant__ unsigned table[TABLE];

extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    __shared__ unsigned copy[TABLE];
    // One thread fills the copy, so each constant read names a single address.
    if (threadIdx.x == 0)
        for (unsigned j = 0; j < TABLE; ++j) copy[j] = table[j];
    __syncthreads();

    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lane = threadIdx.x & 31;
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            // Lane l reads word (c ^ l) + 32 m: 32 different banks, no conflict.
            const unsigned* slice = copy + (c ^ lane);
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
