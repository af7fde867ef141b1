// wrong: [block race] both barriers replaced by a home-made one: the tile is stored by atomicExch, each warp bumps a shared counter by atomicAdd and spins on it with ld.relaxed, and the windows are summed with ld.relaxed: nothing orders the staged words before the counter's
// caught by: race
// on: cpu

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ float ldr(const float* p)
{
    float v;
    asm volatile("ld.relaxed.cta.shared.f32 %0, [%1];" : "=f"(v) : "r"(sh(p)) : "memory");
    return v;
}
__device__ __forceinline__ unsigned ldr(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(sh(p)) : "memory");
    return v;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    __shared__ unsigned arrived;
    const int t = threadIdx.x;
    if (t == 0) arrived = 0;
    __syncthreads();
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        atomicExch(&tile[t + R], at(in, i, n));
        if (t < R) {
            atomicExch(&tile[t], at(in, i - R, n));
            atomicExch(&tile[t + BLOCK + R], at(in, i + BLOCK, n));
        }
        __syncwarp();
        if ((t & 31) == 0) {
            atomicAdd(&arrived, 1u);
            while (ldr(&arrived) < (unsigned)(BLOCK / 32 * (2 * k + 1))) { }
        }
        __syncwarp();
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += ldr(&tile[t + R + j]);
        if (i < n) out[i] = sum;
        __syncwarp();
        if ((t & 31) == 0) {
            atomicAdd(&arrived, 1u);
            while (ldr(&arrived) < (unsigned)(BLOCK / 32 * (2 * k + 2))) { }
        }
        __syncwarp();
    }
}
