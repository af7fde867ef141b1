// wrong: [hidden trace] keeps the starter's divergent walk in one block of eight, and only in grids wider than 1024 blocks (the lesson's): every checked size reads uniformly, and a few traced blocks at the lesson's size rarely hold a divergent one
// caught by: yours constant.distinct_per_request == 1
// on: gpu - the CPU check traces the lesson's few blocks at its size, a GPU's check 64 drawn anywhere
#define TABLE 256
__constant__ unsigned table[TABLE];
extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned lane = (gridDim.x > 1024 && (blockIdx.x & 7) == 5) ? (threadIdx.x & 31) : 0;
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 1
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* slice = table + (c ^ lane);
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += slice[32 * m] ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
