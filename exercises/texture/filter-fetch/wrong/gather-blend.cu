// wrong: [off the point] one tex2Dgather an output (one request, as the solution's one filtered fetch) with its four texels blended by hand: the texture unit never filters, and on the H200 it was as fast as the solution, within the timing checks
// caught by: yours texture.gather_requests == 0
// on: gpu - textures need a GPU
#define FX (-1.7f)
#define FY (1.3f)

__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}

__device__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

extern "C" __global__ void sample_blend(const float* __restrict__ in, cudaTextureObject_t img,
                                        float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    // A gather ignores the filter mode and returns the 2 x 2 footprint: w, z, x, y = t00, t10, t01, t11.
    float4 g = tex2Dgather<float4>(img, i + 1.0f, j + 1.0f, 0);
    out[(size_t)r * n + c] = bilerp(g.w, g.z, g.x, g.y, a, b);
}
