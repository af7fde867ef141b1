// wrong: [slow-variant timing] no shuffle tree: the warp's total is rebuilt bit by bit from 32 __ballot_sync votes (the population count of each bit plane), register to register, 32 votes a round
// caught by: yours faster than solution by >= 0.87x
// on: gpu - the votes move no memory; only the time shows 32 of them a round
#define FULL_MASK 0xffffffffu
extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    for (int r = 0; r < rounds; ++r) {
        unsigned x = live ? v.x + v.y : 0, s = 0;
#pragma unroll
        for (int b = 0; b < 32; ++b) s += (unsigned)__popc(__ballot_sync(FULL_MASK, (x >> b) & 1u)) << b;
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
