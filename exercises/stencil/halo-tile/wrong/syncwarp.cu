// wrong: [block race] waits with __syncwarp() instead of __syncthreads(), reasoning that a warp reads mostly its own words: the first and last R lanes of each warp read words that the neighbouring warp (or the halo's threads) copied, and nothing makes them wait for that warp
// caught by: yours shared.races == 0
// on: cpu

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
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
    __syncwarp();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
