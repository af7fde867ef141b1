// wrong: [token use] sums every window with shuffles in registers, one warp a block; the shared tile holds only each lane's own word, which the lane reads back 17 times per output chunk to bring the shared request count up to the solution's, and each decoy read feeds a NaN test that never fires, so the unused-load analysis calls it used.
// caught by: yours shared.feeds_output_pct == 100
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
    tv[l] = v[0];   // this lane's own word: nobody else reads it, so no barrier is needed
#pragma unroll
    for (int k = 0; k < BLOCK / 32; ++k) {
        float s = 0.0f;
        float prev = (k > 0) ? v[k > 0 ? k - 1 : 0] : 0.0f;
        float next = (k < BLOCK / 32 - 1) ? v[k < BLOCK / 32 - 1 ? k + 1 : 0] : 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) {
            int src = l + j;
            float a = __shfl_sync(0xffffffffu, v[k], src & 31);
            float b;
            if (k == 0) b = __shfl_sync(0xffffffffu, hl, (src + 32 - 24) & 31);
            else b = __shfl_sync(0xffffffffu, prev, src & 31);
            float c;
            if (k == BLOCK / 32 - 1) c = __shfl_sync(0xffffffffu, hr, (src - 32) & 31);
            else c = __shfl_sync(0xffffffffu, next, src & 31);
            s += (src < 0) ? b : (src > 31 ? c : a);
            // Decoy: a conflict-free shared read of this lane's own word, "used" by a
            // test for NaN that the finite inputs never pass.
            float d = tv[l];
            if (d != d) s = d;
        }
        int g = base + 32 * k + l;
        if (g < n) out[g] = s;
    }
}
