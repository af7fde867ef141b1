// wrong: [off the point] exchanges the lanes' values through shared memory at absolute addresses in the first KiB of the window, which the GPU keeps for itself (no shared array declared, so smem is 0), then sums the warp's 32 words with 8 wide loads
// caught by: correct
// on: cpu
#define FULL_MASK 0xffffffffu
extern "C" __global__ void warp_mix(const uint2* __restrict__ in, uint2* __restrict__ out,
                                    int rounds, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < count;
    uint2 v = live ? in[i] : make_uint2(0, 0);
    int lane = threadIdx.x & 31;
    unsigned base = 4u * (threadIdx.x & ~31);
    for (int r = 0; r < rounds; ++r) {
        unsigned mine = live ? v.x + v.y : 0u;
        asm volatile("st.shared.u32 [%0], %1;" :: "r"(base + 4 * lane), "r"(mine) : "memory");
        __syncwarp();
        unsigned s = 0;
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            unsigned a, b, c, d;
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(base + 16 * q) : "memory");
            s += (a + b) + (c + d);
        }
        __syncwarp();
        v.x = (v.x ^ s) + (unsigned)r;
        v.y = (v.y ^ s) + (unsigned)r;
    }
    if (live) out[i] = v;
}
