// wrong: [token use] makes the one filtered fetch, then fetches the four texels as well to blend them by hand and keeps whichever is more exact: five fetches per output where one is asked
// caught by: yours faster than tex-columns by >= 1.2x
// on: gpu - textures need a GPU
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel. The texture `img` filters linearly.

#define FX (-1.7f)
#define FY (1.3f)

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

extern "C" __global__ void sample_blend(const float* __restrict__ in, cudaTextureObject_t img,
                                        float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    float filtered = tex2D<float>(img, x + 0.5f, y + 0.5f);
    // The hardware's weights have 8 fractional bits: the blend by hand, to correct them.
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    float t00 = tex2D<float>(img, i + 0.5f, j + 0.5f);
    float t10 = tex2D<float>(img, i + 1.5f, j + 0.5f);
    float t01 = tex2D<float>(img, i + 0.5f, j + 1.5f);
    float t11 = tex2D<float>(img, i + 1.5f, j + 1.5f);
    float exact = bilerp(t00, t10, t01, t11, a, b);
    out[(size_t)r * n + c] = fabsf(exact - filtered) > 1e-3f ? exact : filtered;
}
