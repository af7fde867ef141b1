// wrong: [unchecked structure] keeps six quads of the group in registers and lets ptxas spill what does not fit into shared memory (CUDA 13's enable_smem_spilling, under launch bounds that keep the cap at 32): the spill counters read 0 while the words are parked in 14 KiB of shared memory per block.
// caught by: yours smem == 0
// on: cpu

#define GROUP 64
#define QUADS (GROUP / 4)
#define KEPT 6  // quads kept for the second pass instead of read again

// 256 threads, 8 blocks per SM: 65536 / 2048 = 32 registers, the same cap. Spilling to
// shared memory needs the block size that launch bounds give.
extern "C" __global__ void __launch_bounds__(256, 8)
group_mix(const uint4* __restrict__ in, uint4* __restrict__ out, int groups)
{
    asm volatile(".pragma \"enable_smem_spilling\";");
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
        uint4 v = src[q];
        v.x = (v.x ^ sum) + mix;
        v.y = (v.y ^ sum) + mix;
        v.z = (v.z ^ sum) + mix;
        v.w = (v.w ^ sum) + mix;
        dst[q] = v;
    }
}
