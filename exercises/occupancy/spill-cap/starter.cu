// Each thread owns a group of 64 words (16 uint4s): it adds them up and XORs them
// together, then writes every word of the group mixed with both figures. The kernel is
// compiled with -maxrregcount=32.

#define GROUP 64
#define QUADS (GROUP / 4)

extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out,
                                     int groups)
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
