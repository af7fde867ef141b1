// wrong: [predictable input] keeps the first 16 words across the passes as 16-bit halves, two to a register, so it holds them in half the registers: right only while every word is below 65536, which a word drawn over all 32 bits is not
// caught by: correct
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

    unsigned p[8];  // two words a register: the top half of each word is taken to be 0
    unsigned sum = 0, mix = 0;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
        p[2 * q] = v.x | (v.y << 16);
        p[2 * q + 1] = v.z | (v.w << 16);
    }
#pragma unroll 1
    for (int q = 4; q < QUADS; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        uint4 v;
        v.x = ((p[2 * q] & 0xffff) ^ sum) + mix;
        v.y = ((p[2 * q] >> 16) ^ sum) + mix;
        v.z = ((p[2 * q + 1] & 0xffff) ^ sum) + mix;
        v.w = ((p[2 * q + 1] >> 16) ^ sum) + mix;
        dst[q] = v;
    }
#pragma unroll 1
    for (int q = 4; q < QUADS; ++q) {
        uint4 v = src[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
