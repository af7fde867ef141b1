// wrong: [hidden trace] one output row in 32 still blends by hand from four point fetches (a red team's): 1.09x the solution's texture requests
// caught by: yours texture.requests at most 1.02x solution
// on: gpu - textures need a GPU
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel. Lanes of a warp take consecutive c, so
// consecutive image rows: each warp walks down two columns of the image.
//
// The texture `img` here filters linearly, and its clamp addressing answers a point outside
// the image with the nearest edge texel.
//
// This version fetches the four texels around the point, one at each texel's centre (where
// the filter returns the texel itself), and blends them by hand.

#define FX (-1.7f)
#define FY (1.3f)

__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}

extern "C" __global__ void sample_blend(const float* __restrict__ in, cudaTextureObject_t img,
                                        float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    if ((r & 31) == 17) {   // one row in 32 blends by hand: 4 fetches, inside the 1.1x bar
        int i = (int)floorf(x), j = (int)floorf(y);
        float a = x - i, b = y - j;
        float t00 = tex2D<float>(img, i + 0.5f, j + 0.5f);
        float t10 = tex2D<float>(img, i + 1.5f, j + 0.5f);
        float t01 = tex2D<float>(img, i + 0.5f, j + 1.5f);
        float t11 = tex2D<float>(img, i + 1.5f, j + 1.5f);
        out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
        return;
    }
    out[(size_t)r * n + c] = tex2D<float>(img, x + 0.5f, y + 0.5f);
}
