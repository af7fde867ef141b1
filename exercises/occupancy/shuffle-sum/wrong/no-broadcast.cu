// wrong: [wrong output] the shuffle tree leaves the total in lane 0 only; the other lanes mix in partial sums.
// caught by: correct
// on: cpu

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned warp_total(unsigned v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
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
