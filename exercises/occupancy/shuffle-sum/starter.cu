// Each thread holds a pair of words. In each of `rounds` rounds the warp adds up its
// lanes' pairs, and every lane mixes the warp's total into its pair. Lanes past the end
// (count need not be a multiple of the block) take part in the sums with 0 and write
// nothing. Blocks have 256 threads.
//
// This version exchanges the lanes' values through shared memory.

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned warp_total(unsigned v, volatile unsigned* s, int lane)
{
    s[lane] = v;
    __syncwarp();
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        if (lane < offset) s[lane] = s[lane] + s[lane + offset];
        __syncwarp();
    }
    unsigned total = s[0];
    __syncwarp();
    return total;
}

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    __shared__ unsigned scratch[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    int lane = threadIdx.x & 31;
    volatile unsigned* mine = scratch + (threadIdx.x & ~31);
    for (int r = 0; r < rounds; ++r) {
        unsigned s = warp_total(live ? v.x + v.y : 0, mine, lane);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
