// wrong: [token use] stages the tile as asked but sums each window from global memory, so every input is still fetched once per window
// caught by: yours global.sectors less than global by >= 8x
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
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += (j == 0) ? tile[t + R] : at(in, i + j, n);
    if (i < n) out[i] = sum;
}
