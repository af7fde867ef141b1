// wrong: [wrong output] fetches at the centre of the texel below and left of the point, as the four-fetch version did for its first texel: that returns the texel itself, not the blend
// caught by: correct
// on: gpu - textures need a GPU
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel. Lanes of a warp take consecutive c, so
// consecutive image rows: each warp walks down two columns of the image.
//
// The texture `img` here filters linearly, and its clamp addressing answers a point outside
// the image with the nearest edge texel.
//
// This version lets the texture unit blend: one fetch at the point itself returns the
// bilinear blend of the four texels around it, with weights of 8 fractional bits (the
// CUDA C++ Programming Guide, "Texture Fetching"), inside the lesson's tolerance.

#define FX (-1.7f)
#define FY (1.3f)

extern "C" __global__ void sample_blend(const float* __restrict__ in, cudaTextureObject_t img,
                                        float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    // Texel i's value sits at i + 0.5, so the point x sits at x + 0.5 in texture coordinates.
    out[(size_t)r * n + c] = tex2D<float>(img, floorf(x) + 0.5f, floorf(y) + 0.5f);
}
