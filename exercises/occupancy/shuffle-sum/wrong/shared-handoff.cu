// wrong: [token use] adds up by shuffles but hands the total to the warp through a shared word, so the kernel still uses shared memory.
// caught by: yours smem == 0
// on: cpu

#define FULL_MASK 0xffffffffu

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    __shared__ unsigned totals[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    int lane = threadIdx.x & 31;
    volatile unsigned* mine = totals + (threadIdx.x >> 5);
    for (int r = 0; r < rounds; ++r) {
        unsigned s = live ? v.x + v.y : 0;
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(FULL_MASK, s, offset);
        if (lane == 0) *mine = s;
        __syncwarp();
        s = *mine;
        __syncwarp();
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
