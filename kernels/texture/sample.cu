// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1) and its value sits at
// i + 0.5). Lanes of a warp take consecutive c, so consecutive image rows: each warp walks
// down two columns of the image, while its stores to `out` are coalesced.
//
// PATH 0: global loads, with explicit bounds checks (indices clamped to the image).
// PATH 1: a texture with point filtering; CHECKS 1 adds the same clamps, CHECKS 0 leaves
//         the edges to the texture's clamp addressing.
// PATH 2: a texture with linear filtering: the hardware interpolates, one fetch.

#define FX (-1.7f)
#define FY (1.3f)

#ifndef CHECKS
#define CHECKS 1
#endif

// The same arithmetic for every path that interpolates by hand.
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

extern "C" __global__ void sample(const float *__restrict__ in, cudaTextureObject_t img,
                                  float *__restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    float v;
#if PATH == 2
    // Texture coordinates put texel i's value at i + 0.5.
    v = tex2D<float>(img, x + 0.5f, y + 0.5f);
#else
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    int i0 = i, i1 = i + 1, j0 = j, j1 = j + 1;
#if PATH == 0 || CHECKS
    i0 = clampi(i0, n); i1 = clampi(i1, n); j0 = clampi(j0, n); j1 = clampi(j1, n);
#endif
#if PATH == 0
    float t00 = in[(size_t)j0 * n + i0], t10 = in[(size_t)j0 * n + i1];
    float t01 = in[(size_t)j1 * n + i0], t11 = in[(size_t)j1 * n + i1];
#else
    float t00 = tex2D<float>(img, i0 + 0.5f, j0 + 0.5f);
    float t10 = tex2D<float>(img, i1 + 0.5f, j0 + 0.5f);
    float t01 = tex2D<float>(img, i0 + 0.5f, j1 + 0.5f);
    float t11 = tex2D<float>(img, i1 + 0.5f, j1 + 0.5f);
#endif
    v = bilerp(t00, t10, t01, t11, a, b);
#endif
    out[(size_t)r * n + c] = v;
}
