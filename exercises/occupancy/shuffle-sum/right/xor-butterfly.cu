// right: a butterfly with __shfl_xor_sync: each step a lane adds the value of the lane
// whose number differs in one bit, so after five steps every lane holds the total and no
// broadcast is needed.

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned warp_total(unsigned v)
{
#pragma unroll
    for (int mask = 16; mask > 0; mask /= 2) v += __shfl_xor_sync(FULL_MASK, v, mask);
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
