// wrong: [wrong output] the butterfly starts at distance 8, so each half of the warp adds up only its own 16 lanes.
// caught by: correct
// on: cpu

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned warp_total(unsigned v)
{
#pragma unroll
    for (int offset = 8; offset > 0; offset /= 2) v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    for (int r = 0; r < rounds; ++r) {
        unsigned s = warp_total(live ? v.x + v.y : 0);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
