// wrong: [hidden trace] stages the tile in block 0 alone, which a sampled trace always looks at, and lets every other block sum its windows from global memory
// caught by: yours global.sectors at most 1.1x solution
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
    float sum = 0.0f;
    if (blockIdx.x == 0) {
        tile[t + R] = at(in, i, n);
        if (t < R) {
            tile[t] = at(in, i - R, n);
            tile[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        __syncthreads();
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    } else {
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += at(in, i + j, n);
    }
    if (i < n) out[i] = sum;
}
