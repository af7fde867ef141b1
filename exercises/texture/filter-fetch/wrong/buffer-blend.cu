// wrong: [off the point] leaves the texture alone and blends the four texels read from the buffer: right within the tolerance, a sector per lane down the column
// caught by: yours global.load_requests == 0
// on: gpu - the starter and the solution fetch textures, which only a GPU runs: the CPU cannot judge them beside it
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
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    int i0 = clampi(i, n), i1 = clampi(i + 1, n), j0 = clampi(j, n), j1 = clampi(j + 1, n);
    float t00 = in[(size_t)j0 * n + i0], t10 = in[(size_t)j0 * n + i1];
    float t01 = in[(size_t)j1 * n + i0], t11 = in[(size_t)j1 * n + i1];
    out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
}
