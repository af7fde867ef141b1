// wrong: [block race] replaces the barrier after staging with `bar.sync 1, 32`, a barrier each warp passes alone, so a warp may read halo words another warp has not written yet
// caught by: race
// on: cpu
#define W (BLOCK + 2 * R)
extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[W];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = (i < n) ? in[i] : 0.0f;
    if (t < R) {
        int g = i - R;
        tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;
        g = i + BLOCK;
        tile[t + BLOCK + R] = (g < n) ? in[g] : 0.0f;
    }
    // looks like a barrier; each warp waits only for itself
    asm volatile("bar.sync 1, 32;" ::: "memory");
    float s = 0.0f;
    for (int j = 0; j <= 2 * R; ++j) s += tile[t + j];
    if (i < n) out[i] = s;
}
