// wrong: [unchecked structure] stages only the block's own inputs and lets the windows at the block's edges fetch the words past it from global memory, one request per step of the window, instead of staging the halo once
// caught by: yours global.sectors at most 1.1x solution
// on: cpu

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t] = at(in, i, n);
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) {
        const int k = t + j;
        sum += (k >= 0 && k < BLOCK) ? tile[k] : at(in, i + j, n);
    }
    if (i < n) out[i] = sum;
}
