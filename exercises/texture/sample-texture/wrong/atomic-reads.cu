// wrong: [off the point] no texture: reads the four texels from the buffer with atomicAdd(p, 0.0f), which returns each word and moves global memory that neither the load count nor the sector figures count
// caught by: yours global.atomic_requests == 0
// on: cpu
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel. Lanes of a warp take consecutive c, so
// consecutive image rows: each warp walks down two columns of the image.
//
// This version reads the four texels around the point from the row-major buffer `in`.

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

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img, float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    int i0 = clampi(i, n), i1 = clampi(i + 1, n), j0 = clampi(j, n), j1 = clampi(j + 1, n);
    float* p = (float*)in;
    float t00 = atomicAdd(&p[(size_t)j0 * n + i0], 0.0f), t10 = atomicAdd(&p[(size_t)j0 * n + i1], 0.0f);
    float t01 = atomicAdd(&p[(size_t)j1 * n + i0], 0.0f), t11 = atomicAdd(&p[(size_t)j1 * n + i1], 0.0f);
    out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
}
