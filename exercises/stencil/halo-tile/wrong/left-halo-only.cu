// wrong: [wrong output] stages the left halo but not the right one, so the last R windows of every block sum words nobody wrote
// caught by: correct
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
    if (t < R) tile[t] = at(in, i - R, n);
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
