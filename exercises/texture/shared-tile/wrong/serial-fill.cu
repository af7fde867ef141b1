// wrong: [slow-variant timing] has one thread fill the whole patch in a loop while the other 255 wait: every texel its own request of one lane, and a block's loads one after another
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
// The texture lesson's resampling without a texture: out[r * n + c] is the image sampled
// bilinearly at (x, y) = (r + FX, c + FY) in texel units, from the row-major buffer `in`,
// with points outside the image taking the nearest edge texel (indices clamped).
//
// A block makes a T x T tile of outputs (T values of r, T of c) from a (T + 1) x (T + 1)
// patch of the image: the texels under the tile's points and one more on each axis for the
// blend. The patch is read into shared memory along the image's rows (coalesced), and the
// outputs are made along c (coalesced stores), reading the patch down its columns. A patch
// row of T + 1 words puts the words of one column in 32 different banks.

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
    __shared__ float patch[T + 1][T + 1]; // [y - y0][x - x0]
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int x0 = (int)floorf(r0 + FX), y0 = (int)floorf(c0 + FY);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        for (int yy = 0; yy < T + 1; ++yy)
            for (int xx = 0; xx < T + 1; ++xx)
                patch[yy][xx] = in[(size_t)clampi(y0 + yy, n) * n + clampi(x0 + xx, n)];
    __syncthreads();

    const int c = c0 + threadIdx.x;
    for (int rr = threadIdx.y; rr < T; rr += ROWS) {
        const int r = r0 + rr;
        if (r >= n || c >= n) continue;
        float x = r + FX, y = c + FY;
        int i = (int)floorf(x), j = (int)floorf(y);
        float a = x - i, b = y - j;
        int xi = i - x0, yj = j - y0;
        float t00 = patch[yj][xi], t10 = patch[yj][xi + 1];
        float t01 = patch[yj + 1][xi], t11 = patch[yj + 1][xi + 1];
        out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
    }
}
