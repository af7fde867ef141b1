// wrong: [token use] no patch in shared memory: warp 0 reads the 33 x 33 patch along rows into registers (column 32 a lane at a time, as the solution's lane 0), turns it with a 5-stage shfl_xor butterfly and takes the row below by shuffles; one shared word a lane, stored and read back, keeps the shared checks (conflicts, races) measurable and met. (the shared requests fall far short of the solution's, too)
// caught by: yours shuffles == 0
// on: cpu
#define FX (-1.7f)
#define FY (1.3f)
#define T 32
#define ROWS 8
__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}
__device__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

extern "C" __global__ void sample_tiled(const float* __restrict__ in, float* __restrict__ out,
                                        int n)
{
    __shared__ float tok[32];
    if (threadIdx.y != 0) return;
    const int l = threadIdx.x;
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int x0 = (int)floorf(r0 + FX), y0 = (int)floorf(c0 + FY);
    float v[32];
    float c32 = 0.0f;                       // P[l][32]
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        const size_t row = (size_t)clampi(y0 + k, n) * n;
        v[k] = in[row + clampi(x0 + l, n)];  // P[k][l]
        if (l == k) c32 = in[row + clampi(x0 + 32, n)];
    }
    const size_t row32 = (size_t)clampi(y0 + 32, n) * n;
    const float w32 = in[row32 + clampi(x0 + l, n)];   // P[32][l]
    float corner = 0.0f;
    if (l == 0) corner = in[row32 + clampi(x0 + 32, n)];
    // the token: one word a lane through shared memory
    ((volatile float*)tok)[l] = corner;
    __syncwarp();
    corner = ((volatile float*)tok)[l];
    // transpose: lane l, reg k  <-  P[l][k]
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
#pragma unroll
        for (int k = 0; k < 32; ++k) {
            if (k & m) continue;
            float send = (l & m) ? v[k] : v[k | m];
            float recv = __shfl_xor_sync(0xffffffffu, send, m);
            if (l & m) v[k] = recv; else v[k | m] = recv;
        }
    }
    const int c = c0 + l;
    const float y = c + FY;
    const int j = (int)floorf(y);
    const float b = y - j;
    const float cornerAll = __shfl_sync(0xffffffffu, corner, 0);
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        const float p0 = v[k];
        const float p1 = (k < 31) ? v[(k + 1) & 31] : c32;
        float q0 = __shfl_down_sync(0xffffffffu, p0, 1);
        float q1 = __shfl_down_sync(0xffffffffu, p1, 1);
        const float b0 = __shfl_sync(0xffffffffu, w32, k);
        const float b1 = (k < 31) ? __shfl_sync(0xffffffffu, w32, (k + 1) & 31) : cornerAll;
        if (l == 31) { q0 = b0; q1 = b1; }
        const int r = r0 + k;
        const float x = r + FX;
        const float a = x - floorf(x);
        if (r < n && c < n) out[(size_t)r * n + c] = bilerp(p0, p1, q0, q1, a, b);
    }
}
