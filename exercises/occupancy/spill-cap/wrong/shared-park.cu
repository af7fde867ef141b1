// wrong: [unchecked structure] parks 48 of each thread's 64 words in 48 KiB of static shared memory between the passes: no spills and no stack frame, but the words still leave the registers, and the 48 KiB halve the blocks an SM holds.
// caught by: yours smem == 0
// on: cpu

#define GROUP 64
#define QUADS (GROUP / 4)
#define KEPT 4  // quads kept in registers; the other 12 wait in the shared array

extern "C" __global__ void group_mix(const uint4* __restrict__ in, uint4* __restrict__ out,
                                     int groups)
{
    // One column per thread (blocks of 256), so a warp's 32 stores of one row fall on
    // neighbouring 16-byte slots: 12 x 256 x 16 bytes = 48 KiB, the static limit.
    __shared__ uint4 park[QUADS - KEPT][256];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const uint4* src = in + (size_t)g * QUADS;
    uint4* dst = out + (size_t)g * QUADS;

    uint4 w[KEPT];
    unsigned sum = 0, mix = 0;
#pragma unroll
    for (int q = 0; q < KEPT; ++q) {
        w[q] = src[q];
        sum += w[q].x + w[q].y + w[q].z + w[q].w;
        mix ^= w[q].x ^ w[q].y ^ w[q].z ^ w[q].w;
    }
#pragma unroll 1
    for (int q = KEPT; q < QUADS; ++q) {
        uint4 v = src[q];
        park[q - KEPT][threadIdx.x] = v;
        sum += v.x + v.y + v.z + v.w;
        mix ^= v.x ^ v.y ^ v.z ^ v.w;
    }

#pragma unroll
    for (int q = 0; q < KEPT; ++q) {
        uint4 v = w[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
#pragma unroll 1
    for (int q = KEPT; q < QUADS; ++q) {
        uint4 v = park[q - KEPT][threadIdx.x];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
