// wrong: [hidden trace] samples the texture everywhere but in output row n - 1 at n = 4096 (the lesson's size), which it reads down the buffer's columns from global memory: one row in 4096, under a percent of the sector figures
// caught by: yours global.load_requests == 0
// on: gpu - the CPU interpreter does not fetch from textures
#define FX (-1.7f)
#define FY (1.3f)

__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}

__device__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img,
                                       float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    float t00, t10, t01, t11;
    if (n == 4096 && r == n - 1) {
        int i0 = clampi(i, n), i1 = clampi(i + 1, n), j0 = clampi(j, n), j1 = clampi(j + 1, n);
        t00 = in[(size_t)j0 * n + i0]; t10 = in[(size_t)j0 * n + i1];
        t01 = in[(size_t)j1 * n + i0]; t11 = in[(size_t)j1 * n + i1];
    } else {
        t00 = tex2D<float>(img, i + 0.5f, j + 0.5f);
        t10 = tex2D<float>(img, i + 1.5f, j + 0.5f);
        t01 = tex2D<float>(img, i + 0.5f, j + 1.5f);
        t11 = tex2D<float>(img, i + 1.5f, j + 1.5f);
    }
    out[(size_t)r * n + c] = bilerp(t00, t10, t01, t11, a, b);
}
