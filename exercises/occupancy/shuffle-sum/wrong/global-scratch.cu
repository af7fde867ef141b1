// wrong: [off the point] swaps the shared scratch for global memory: each lane leaves its value in its slot of `out`, and every lane adds up the warp's slots, so a round costs global stores and loads instead of shuffles.
// caught by: yours global.sectors at most 1.1x solution
// on: cpu

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    int first = i & ~31;  // the warp's first pair
    for (int r = 0; r < rounds; ++r) {
        if (live) out[i].x = v.x + v.y;  // lanes past the end have no slot: they add 0
        __syncwarp();
        unsigned s = 0;
        for (int k = 0; k < 32; ++k)
            if (first + k < count) s += out[first + k].x;
        __syncwarp();  // every lane has read the slots before the next round writes them
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
