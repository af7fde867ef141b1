// The tile holds in[b - R] .. in[b + BLOCK + R - 1], b the block's first output. The block
// fills it as one contiguous copy, thread t taking words t, t + BLOCK, ...: every warp's
// loads are 32 neighbouring floats, the halo included, and the last 2R words fall to the
// first 2R threads. Then one barrier, and each thread sums its window.

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int first = blockIdx.x * BLOCK - R; // the input tile[0] holds
    for (int k = t; k < BLOCK + 2 * R; k += BLOCK) {
        const int g = first + k;
        tile[k] = (g >= 0 && g < n) ? in[g] : 0.0f;
    }
    // Every window reaches words that other warps copied.
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j <= 2 * R; ++j) sum += tile[t + j];
    const int i = blockIdx.x * BLOCK + t;
    if (i < n) out[i] = sum;
}
