// wrong: [slow-variant timing] lets the filter blend along x only, fetching at the point's x on the centres of the two texel rows around it, and blends those two along y by hand: right within the tolerance, and faster than tex-columns, but two fetches an output where one filtered fetch does the whole blend
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
// This version trusts the filter with one axis only. A fetch whose y sits on a texel row's
// centre blends nothing along y, so it returns that row's two texels blended along x; two
// such fetches, on rows j and j + 1, are blended along y here. The filter's second axis
// would have done that blend in the same single fetch.

#define FX (-1.7f)
#define FY (1.3f)

extern "C" __global__ void sample_blend(const float* __restrict__ in, cudaTextureObject_t img,
                                        float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int j = (int)floorf(y);
    float b = y - j;
    // Texel i's value sits at i + 0.5: x + 0.5 is the point along x, j + 0.5 and j + 1.5
    // the centres of rows j and j + 1, the two around it.
    float top = tex2D<float>(img, x + 0.5f, j + 0.5f);
    float bot = tex2D<float>(img, x + 0.5f, j + 1.5f);
    out[(size_t)r * n + c] = top + b * (bot - top);
}
