// wrong: [unbounded] loads the halo without testing the array's ends, so the first block reads before in[0] and the last one past in[n - 1]
// caught by: correct
// on: cpu

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = i < n ? in[i] : 0.0f;
    if (t < R) {
        tile[t] = in[i - R];
        tile[t + BLOCK + R] = in[i + BLOCK];
    }
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
