// wrong: [token use] parks a quarter of the words (quads 0-3) in a __device__ scratch array, written and read back coalesced, and reads the rest again: 1.08x the solution's requests
// caught by: yours global.requests at most 1.02x solution
// on: cpu
#define GROUP 64
#define QUADS (GROUP / 4)
__device__ uint4 park[4][1 << 20];
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
        sum += v.x + v.y + v.z + v.w; mix ^= v.x ^ v.y ^ v.z ^ v.w;
        if (q < 4) park[q][g] = v;
    }
#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = q < 4 ? park[q][g] : src[q];
        v.x = (v.x ^ sum) + mix; v.y = (v.y ^ sum) + mix; v.z = (v.z ^ sum) + mix; v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
