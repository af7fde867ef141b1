// wrong: [unchecked structure] parks the group by hand in the output with `atomicExch` and reads it back, a spill to global memory made of atomics
// caught by: atomics
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
    unsigned* park = reinterpret_cast<unsigned*>(dst);
    unsigned sum = 0, mix = 0;
#pragma unroll 4
    for (int q = 0; q < QUADS; ++q) {
        const uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
        atomicExch(park + 4 * q, v.x); atomicExch(park + 4 * q + 1, v.y);
        atomicExch(park + 4 * q + 2, v.z); atomicExch(park + 4 * q + 3, v.w);
    }
#pragma unroll 4
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = dst[q];
        v.x = (v.x ^ sum) + mix; v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix; v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
