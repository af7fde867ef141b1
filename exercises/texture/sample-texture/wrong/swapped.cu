// wrong: [wrong output] passes the texel's row as x and its column as y: the fetches read the image transposed
// caught by: correct
// on: gpu - textures need a GPU
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel. Lanes of a warp take consecutive c, so
// consecutive image rows: each warp walks down two columns of the image.
//
// This version fetches the four texels around the point from the texture `img`, whose
// cache keeps texels that are near in 2D near each other, and whose clamp addressing
// answers a point outside the image with the nearest edge texel.

#define FX (-1.7f)
#define FY (1.3f)

__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img,
                                       float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    // Texel (i, j)'s value sits at (i + 0.5, j + 0.5).
    float t00 = tex2D<float>(img, j + 0.5f, i + 0.5f);
    float t10 = tex2D<float>(img, j + 0.5f, i + 1.5f);
    float t01 = tex2D<float>(img, j + 1.5f, i + 0.5f);
    float t11 = tex2D<float>(img, j + 1.5f, i + 1.5f);
    out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
}
