// Every lane walks the table in the same order, four words at a time as 16-byte (uint4)
// loads: each names one address, which the constant cache broadcasts to the warp, in a
// quarter of the solution's requests.
#define TABLE 256
__constant__ unsigned table[TABLE];
extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const uint4* t4 = reinterpret_cast<const uint4*>(table);
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
#pragma unroll 4
        for (unsigned k = 0; k < TABLE / 4; ++k) {
            uint4 v = t4[k];
            sum += (v.x ^ x) + (v.y ^ x) + (v.z ^ x) + (v.w ^ x);
        }
        x = sum;
    }
    out[i] = x;
}
