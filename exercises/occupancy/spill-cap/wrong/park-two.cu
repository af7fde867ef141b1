// wrong: [token use] parks two of the sixteen quads in the output buffer and reads them back, the other fourteen kept in registers: 1.04x the solution's sectors and requests, inside the old 1.05x bars (a red team's, passing every CPU check)
// caught by: yours global.sectors at most 1.02x solution
// on: cpu
#define GROUP 64
#define QUADS (GROUP / 4)
extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out, int groups)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;
    unsigned sum = 0, mix = 0;
#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = src[q];
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
        if (q < 2) dst[q] = v;
    }
#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = q < 2 ? __ldcg(dst + q) : __ldg(src + q);
        v.x = (v.x ^ sum) + mix; v.y = (v.y ^ sum) + mix; v.z = (v.z ^ sum) + mix; v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
