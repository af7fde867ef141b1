// right: lanes past the end leave at once; the live lanes (0 to live - 1 of the warp) climb a shfl_down tree over the mask of live lanes, and a value a lane shuffles from a lane outside the mask is read but thrown away (it is undefined, and never used), so the tree's total is the live lanes' alone. Lane 0 then hands the total round.
extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    uint2 v = in[i];
    const int lane = threadIdx.x & 31;
    const unsigned mask = __activemask();
    const int live = __popc(mask);           // live lanes are 0 .. live-1
    for (int r = 0; r < rounds; ++r) {
        unsigned s = v.x + v.y;
#pragma unroll
        for (int m = 16; m >= 1; m >>= 1) {
            unsigned o = __shfl_down_sync(mask, s, m);
            if (lane + m < live) s += o;
        }
        s = __shfl_sync(mask, s, 0);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    out[i] = v;
}
