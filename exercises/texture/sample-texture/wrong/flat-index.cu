// wrong: [one size] stores at a flat index that takes the grid's row of threads for a row of out: right while a grid row is exactly n threads, rows shifted once n is not a multiple of 256
// caught by: correct
// on: gpu - textures need a GPU
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel.

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

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img,
                                       float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    // The thread's number in the whole grid, taken for its place in out.
    size_t k = (size_t)blockIdx.y * gridDim.x * blockDim.x + c;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    float t00 = tex2D<float>(img, i + 0.5f, j + 0.5f);
    float t10 = tex2D<float>(img, i + 1.5f, j + 0.5f);
    float t01 = tex2D<float>(img, i + 0.5f, j + 1.5f);
    float t11 = tex2D<float>(img, i + 1.5f, j + 1.5f);
    out[k] = bilerp(t00, t10, t01, t11, a, b);
}
