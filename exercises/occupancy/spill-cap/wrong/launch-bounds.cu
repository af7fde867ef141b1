// wrong: [off the point] lifts the register cap with __launch_bounds__, which overrides -maxrregcount, instead of needing fewer registers.
// caught by: yours registers <= 32
// on: cpu

#define GROUP 64
#define QUADS (GROUP / 4)

extern "C" __global__ void __launch_bounds__(256, 1)
group_mix(const uint4* __restrict__ in, uint4* __restrict__ out, int groups)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;

    uint4 w[QUADS];
#pragma unroll
    for (int q = 0; q < QUADS; ++q) w[q] = src[q];

    unsigned sum = 0, mix = 0;
#pragma unroll
    for (int q = 0; q < QUADS; ++q) {
        sum += w[q].x + w[q].y + w[q].z + w[q].w;
        mix ^= w[q].x ^ w[q].y ^ w[q].z ^ w[q].w;
    }

#pragma unroll
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = w[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
