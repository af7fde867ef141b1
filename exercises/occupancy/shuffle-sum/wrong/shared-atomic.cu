// wrong: [off the point] adds the warp's values with atomicAdd on one shared word per warp: no shared tree, but still shared memory, and 32 lanes on one word every round.
// caught by: yours smem == 0
// on: cpu

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    __shared__ unsigned totals[8];  // one per warp of a 256-thread block
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    int lane = threadIdx.x & 31;
    unsigned* mine = totals + (threadIdx.x >> 5);
    for (int r = 0; r < rounds; ++r) {
        if (lane == 0) *mine = 0;
        __syncwarp();
        atomicAdd(mine, live ? v.x + v.y : 0u);
        __syncwarp();
        unsigned s = *mine;
        __syncwarp();  // everyone has read the total before lane 0 clears it again
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
