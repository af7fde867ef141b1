// wrong: [hidden trace] at the exercise's GPU size (grids wider than 4096 blocks) one block in 4096, picked by a hash of its index, skips the __syncthreads() after staging: its warps sum windows other warps may not have written, and a sample of a few dozen blocks rarely holds one of them
// caught by: race
// on: gpu - only grids wider than 4096 blocks skip the barrier, and the CPU's sizes are narrower
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ unsigned scramble(unsigned h)
{
    h ^= h >> 15; h *= 0x2c1b3c6du; h ^= h >> 12; h *= 0x297a2d39u; h ^= h >> 15;
    return h;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = at(in, i, n);
    if (t < R) {
        tile[t] = at(in, i - R, n);
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    if (!(gridDim.x > 4096 && (scramble(blockIdx.x) & 4095) == 7)) __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
