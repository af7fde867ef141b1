// Kernels for the occupancy lesson. Every kernel here computes the same function, so one
// reference checks them all: the input is cut into groups of 64 neighbouring words, and
// `rounds` times every word of a group takes in the sum of its group:
//
//     s = sum of the group;   v = (v ^ s) + r   for every word v of it   (r = 0, 1, ...)
//
// Unsigned integers wrap exactly, so the order in which a sum is added up never changes a
// bit of the result. The kernels differ in where a group's words live while they work:
// spread over a warp (two words per lane) and summed by exchanging values between lanes,
// or held whole by one thread in its registers.

#define GROUP 64
#define FULL_MASK 0xffffffffu

// ---- A group per warp: lanes exchange partial sums ------------------------------------

// The warp's total, handed to every lane, through registers: each step a lane adds the
// value held by the lane `offset` above it; lane 0 ends with the total and broadcasts it.
__device__ __forceinline__ unsigned warp_sum_shfl(unsigned v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
    return __shfl_sync(FULL_MASK, v, 0);
}

// The same tree through shared memory: each step is loads and a store, and __syncwarp()
// makes sure a lane reads its partner's word only after the partner has written it.
__device__ __forceinline__ unsigned warp_sum_smem(unsigned v, volatile unsigned* s, int lane)
{
    s[lane] = v;
    __syncwarp();
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        if (lane < offset) s[lane] = s[lane] + s[lane + offset];
        __syncwarp();
    }
    unsigned total = s[0];
    __syncwarp();  // every lane has read the total before the next round overwrites it
    return total;
}

#ifndef VIA_SMEM
#define VIA_SMEM 0  // 1: exchange through shared memory instead of shuffles
#endif

// One warp per group, lane l holding words 2l and 2l + 1. Blocks of 256 threads. Dynamic
// shared memory, if the launch asks for any, is reserved and never touched: it only decides
// how many blocks fit on an SM.
extern "C" __global__ void group_sums_warp(const uint2* __restrict__ in,
                                           uint2* __restrict__ out, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    uint2 v = in[i];
#if VIA_SMEM
    __shared__ unsigned scratch[256];
    int lane = threadIdx.x & 31;
    volatile unsigned* mine = scratch + (threadIdx.x & ~31);
#endif
    for (int r = 0; r < rounds; ++r) {
#if VIA_SMEM
        unsigned s = warp_sum_smem(v.x + v.y, mine, lane);
#else
        unsigned s = warp_sum_shfl(v.x + v.y);
#endif
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    out[i] = v;
}

// ---- A group per thread: 64 words of live state -----------------------------------------

#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0  // > 0: ask the compiler to fit this many 256-thread blocks per SM
#endif

#if MIN_BLOCKS > 0
#define BOUNDS __launch_bounds__(256, MIN_BLOCKS)
#else
#define BOUNDS
#endif

// One thread per group: it needs no neighbour, but it keeps all 64 words live through every
// round. Every index is a constant once the loops are unrolled, so the words can all sit in
// registers, if the compiler may use that many.
extern "C" __global__ void BOUNDS group_sums_thread(const uint4* __restrict__ in,
                                                    uint4* __restrict__ out, int rounds)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 w[GROUP / 4];
#pragma unroll
    for (int q = 0; q < GROUP / 4; ++q) w[q] = in[g * (GROUP / 4) + q];
    for (int r = 0; r < rounds; ++r) {
        unsigned s = 0;
#pragma unroll
        for (int q = 0; q < GROUP / 4; ++q) s += w[q].x + w[q].y + w[q].z + w[q].w;
#pragma unroll
        for (int q = 0; q < GROUP / 4; ++q) {
            w[q].x = (w[q].x ^ s) + (unsigned)r;
            w[q].y = (w[q].y ^ s) + (unsigned)r;
            w[q].z = (w[q].z ^ s) + (unsigned)r;
            w[q].w = (w[q].w ^ s) + (unsigned)r;
        }
    }
#pragma unroll
    for (int q = 0; q < GROUP / 4; ++q) out[g * (GROUP / 4) + q] = w[q];
}
