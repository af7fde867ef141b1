// wrong: [off the point] every lane fetches all 32 lanes' values with __shfl_sync and adds them one by one: register to register and right, but a serial sum, 32 shuffles a round where a tree needs 6, and slower even than the shared-memory tree.
// caught by: yours faster than solution by >= 0.87x
// on: gpu - shuffles leave no trace in memory; only a time shows how many there are

#define FULL_MASK 0xffffffffu

extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    for (int r = 0; r < rounds; ++r) {
        unsigned mine = live ? v.x + v.y : 0;
        unsigned s = 0;
        for (int src = 0; src < 32; ++src) s += __shfl_sync(FULL_MASK, mine, src);
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
