// wrong: [hidden trace] where n > 2048, one block in 256 (by a hash of its index) lays its patch out 64 words a row, so its column reads fall 32 ways in one bank; every block runs the same instructions, only the pitch in a register differs
// caught by: yours shared.conflicts_per_request == 0
// on: gpu - the interpreter traces a sample of the lesson-size grid's blocks and seldom holds an odd one; a GPU check's census costs every block's shared requests
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
    __shared__ float patch[(T + 1) * 64];
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int x0 = (int)floorf(r0 + FX), y0 = (int)floorf(c0 + FY);
    const int pitch = (n > 2048 && (((blockIdx.y * gridDim.x + blockIdx.x) * 2654435761u) >> 24) == 77u) ? 64 : T + 1;
    for (int yy = threadIdx.y; yy < T + 1; yy += ROWS)
        for (int xx = threadIdx.x; xx < T + 1; xx += T)
            patch[yy * pitch + xx] = in[(size_t)clampi(y0 + yy, n) * n + clampi(x0 + xx, n)];
    __syncthreads();
    const int c = c0 + threadIdx.x;
    for (int rr = threadIdx.y; rr < T; rr += ROWS) {
        const int r = r0 + rr;
        if (r >= n || c >= n) continue;
        float x = r + FX, y = c + FY;
        int i = (int)floorf(x), j = (int)floorf(y);
        float a = x - i, b = y - j;
        int xi = i - x0, yj = j - y0;
        float t00 = patch[yj * pitch + xi], t10 = patch[yj * pitch + xi + 1];
        float t01 = patch[(yj + 1) * pitch + xi], t11 = patch[(yj + 1) * pitch + xi + 1];
        out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
    }
}
