// wrong: [unchecked structure] the 64 words are parked in a __device__ global scratch array (coalesced, lane-interleaved) between the two passes instead of being read again
// caught by: yours global.requests at most 1.02x solution
// on: cpu
#define GROUP 64
#define QUADS (GROUP / 4)
#define MAX_GROUPS (1 << 20) // the lesson's n / group

__device__ uint4 park[QUADS * MAX_GROUPS];

extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out,
                                     int groups)
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
        park[(size_t)q * groups + g] = v;
    }

#pragma unroll 1
    for (int q = 0; q < QUADS; ++q) {
        uint4 v = park[(size_t)q * groups + g];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
