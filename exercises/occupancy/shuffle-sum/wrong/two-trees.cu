// wrong: [slow-variant timing] runs one shuffle tree for the x words and another for the y words and adds the totals: right, register to register, but twelve shuffles a round where adding the pair first needs six, and shuffles are what this kernel's time is made of.
// caught by: yours faster than solution by >= 0.87x
// on: gpu - shuffles leave no trace in memory; only a time shows how many there are

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned warp_total(unsigned v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    return __shfl_sync(FULL_MASK, v, 0);
}

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    for (int r = 0; r < rounds; ++r) {
        unsigned s = warp_total(live ? v.x : 0) + warp_total(live ? v.y : 0);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
