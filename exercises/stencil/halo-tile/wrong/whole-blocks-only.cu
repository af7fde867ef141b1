// wrong: [one size] uses the tile only when n is a multiple of the block, as the lesson's n is, and falls back to reading every window from global memory otherwise
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
    if (n % BLOCK == 0) {
        // Whole blocks: no output past the end, the tile's only edge cases are the halos.
        tile[t + R] = in[i];
        if (t < R) {
            tile[t] = at(in, i - R, n);
            tile[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        __syncthreads();
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    } else {
        // A ragged n: the simple way, every input tested.
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += at(in, i + j, n);
    }
    if (i < n) out[i] = sum;
}
