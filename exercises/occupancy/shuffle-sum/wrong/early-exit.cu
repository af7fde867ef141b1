// wrong: [one size] lanes past the end return at once, so the last warp's shuffles name lanes that have exited: right only when the pairs fill whole warps.
// caught by: correct
// on: cpu

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
    if (i >= count) return;
    uint2 v = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned s = warp_total(v.x + v.y);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    out[i] = v;
}
