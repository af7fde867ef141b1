// wrong: [unchecked structure] keeps 3 of the 16 quads in registers and parks 7 more in the output buffer itself, written raw and read back before the mixed words overwrite them: spills moved to global memory by hand, with no spill counted
// caught by: yours global.sectors at most 1.02x solution
// on: cpu
#define GROUP 64
#define QUADS (GROUP / 4)
#define KEEP 3
#define PARK_END 10
extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* out, int groups)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;
    uint4 k[KEEP];
    unsigned sum = 0, mix = 0;
#pragma unroll
    for (int q = 0; q < KEEP; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
        k[q] = v;
    }
#pragma unroll 1
    for (int q = KEEP; q < QUADS; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
        if (q < PARK_END) dst[q] = v;  // parked
    }
#pragma unroll
    for (int q = 0; q < KEEP; ++q) {
        uint4 v = k[q];
        v.x = (v.x ^ sum) + mix; v.y = (v.y ^ sum) + mix; v.z = (v.z ^ sum) + mix; v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
#pragma unroll 1
    for (int q = KEEP; q < QUADS; ++q) {
        uint4 v = q < PARK_END ? dst[q] : src[q];
        v.x = (v.x ^ sum) + mix; v.y = (v.y ^ sum) + mix; v.z = (v.z ^ sum) + mix; v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
