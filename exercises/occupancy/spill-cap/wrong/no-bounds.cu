// wrong: [unbounded] the two passes are right, but the early return for threads past the last group is gone, so they read and write past the end.
// caught by: correct
// on: cpu

#define GROUP 64
#define QUADS (GROUP / 4)

extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out,
                                     int groups)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;

    unsigned sum = 0, mix = 0;
#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
    }

#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = src[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
