// wrong: [one size] lets a ragged last block sum its windows from global memory, which weighs little where the last block is one of many
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
#define W (BLOCK + 2 * R)
extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[W];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    if (gridDim.x > 1 && (blockIdx.x + 1) * BLOCK > n) {
        if (i >= n) return;
        float s = 0.0f;
        for (int j = -R; j <= R; ++j) {
            int g = i + j;
            if (g >= 0 && g < n) s += in[g];
        }
        out[i] = s;
        return;
    }
    tile[t + R] = (i < n) ? in[i] : 0.0f;
    if (t < R) {
        int g = i - R;
        tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;
        g = i + BLOCK;
        tile[t + BLOCK + R] = (g < n) ? in[g] : 0.0f;
    }
    __syncthreads();
    float s = 0.0f;
    for (int j = 0; j <= 2 * R; ++j) s += tile[t + j];
    if (i < n) out[i] = s;
}
