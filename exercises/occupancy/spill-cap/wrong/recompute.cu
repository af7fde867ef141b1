// wrong: [slow-variant timing] holds nothing across the group: before writing each quad it reads the whole group again to recompute the sum and the XOR, so no spills and few registers, but six times the solution's global traffic, and 3.5 times its time on an H200.
// caught by: yours global.sectors at most 1.02x solution
// on: cpu

#define GROUP 64
#define QUADS (GROUP / 4)

extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out,
                                     int groups)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;

#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        unsigned sum = 0, mix = 0;
#pragma unroll 1
        for (int k = 0; k < QUADS; ++k) {
            uint4 v = src[k];
            sum += v.x + v.y + v.z + v.w;
            mix ^= v.x ^ v.y ^ v.z ^ v.w;
        }
        uint4 v = src[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
