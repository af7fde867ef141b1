// The texture lesson's resampling without a texture: out[r * n + c] is the image sampled
// bilinearly at (x, y) = (r + FX, c + FY) in texel units, from the row-major buffer `in`,
// with points outside the image taking the nearest edge texel (indices clamped).
//
// A block makes a T x T tile of outputs (T values of r, T of c). This version reads the
// four texels of each output straight from `in`: the lanes of a warp take consecutive c,
// so consecutive image rows, one sector per lane.

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

__device__ int clampi(int i, int n)
{
    return min(max(i, 0), n - 1);
}

extern "C" __global__ void sample_tiled(const float* __restrict__ in, float* __restrict__ out,
                                        int n)
{
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int c = c0 + threadIdx.x;
    for (int rr = threadIdx.y; rr < T; rr += ROWS) {
        const int r = r0 + rr;
        if (r >= n || c >= n) continue;
        float x = r + FX, y = c + FY;
        int i = (int)floorf(x), j = (int)floorf(y);
        float a = x - i, b = y - j;
        int i0 = clampi(i, n), i1 = clampi(i + 1, n), j0 = clampi(j, n), j1 = clampi(j + 1, n);
        float t00 = in[(size_t)j0 * n + i0], t10 = in[(size_t)j0 * n + i1];
        float t01 = in[(size_t)j1 * n + i0], t11 = in[(size_t)j1 * n + i1];
        out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
    }
}
