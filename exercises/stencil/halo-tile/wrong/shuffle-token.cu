// wrong: [token use] sums the windows with shuffles in registers, with one shared word staged and read for show
// caught by: yours shared.lane_words at least 0.9x solution
// on: cpu
extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tok[32];
    const int l = threadIdx.x;
    if (l >= 32) return;
    const int base = blockIdx.x * BLOCK;
    float v[BLOCK / 32];
#pragma unroll
    for (int k = 0; k < BLOCK / 32; ++k) {
        int g = base + 32 * k + l;
        v[k] = (g < n) ? in[g] : 0.0f;
    }
    float hl = 0.0f, hr = 0.0f;
    if (l < R) {
        int g = base - R + l;
        hl = (g >= 0 && g < n) ? in[g] : 0.0f;
        g = base + BLOCK + l;
        hr = (g < n) ? in[g] : 0.0f;
    }
    volatile float* tv = tok;
    tv[l] = v[0];
    float zero = tv[l] - v[0];
#pragma unroll
    for (int k = 0; k < BLOCK / 32; ++k) {
        float s = zero;
        float prev = (k > 0) ? v[k > 0 ? k - 1 : 0] : 0.0f;
        float next = (k < BLOCK / 32 - 1) ? v[k < BLOCK / 32 - 1 ? k + 1 : 0] : 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) {
            int src = l + j;
            float a = __shfl_sync(0xffffffffu, v[k], src & 31);
            float b;
            if (k == 0) b = __shfl_sync(0xffffffffu, hl, (src + 32 - 24) & 31);      // lanes -8..-1 -> hl lanes 0..7
            else b = __shfl_sync(0xffffffffu, prev, src & 31);
            float c;
            if (k == BLOCK / 32 - 1) c = __shfl_sync(0xffffffffu, hr, (src - 32) & 31); // lanes 32..39 -> hr lanes 0..7
            else c = __shfl_sync(0xffffffffu, next, src & 31);
            s += (src < 0) ? b : (src > 31 ? c : a);
        }
        int g = base + 32 * k + l;
        if (g < n) out[g] = s;
    }
}
