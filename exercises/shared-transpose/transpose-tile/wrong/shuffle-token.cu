// wrong: [token use] transposes in registers by shuffles, with a token shared read
// caught by: yours shared.requests at least 0.9x solution
// on: cpu
#define TILE 32

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tok[32];
    if (threadIdx.y != 0) return;
    const int l = threadIdx.x;
    const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    float v[TILE];
#pragma unroll
    for (int r = 0; r < TILE; ++r) {
        int x = x0 + l, y = y0 + r;
        v[r] = (x < n && y < n) ? in[(size_t)y * n + x] : 0.0f;
    }
    // v[r] at lane l = A[r][l]; after the butterflies, v[c] at lane l = A[l][c]
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) {
        const bool upper = (l & m) != 0;
#pragma unroll
        for (int i = 0; i < TILE; ++i) {
            if (i & m) continue;
            float send = upper ? v[i] : v[i | m];
            float recv = __shfl_xor_sync(0xffffffffu, send, m);
            if (upper) v[i] = recv; else v[i | m] = recv;
        }
    }
    volatile float* tv = tok;
    tv[l] = v[0];
    float zero = tv[l] - v[0];
#pragma unroll
    for (int c = 0; c < TILE; ++c) {
        int oy = x0 + c, ox = y0 + l;
        if (oy < n && ox < n) out[(size_t)oy * n + ox] = v[c] + zero;
    }
}
