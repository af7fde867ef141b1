// wrong: [slow-variant timing] fetches the whole 3 x 3 neighbourhood through the texture, nine fetches where four do, and blends the four it needs
// caught by: yours texture.requests at most 1.5x solution
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

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img,
                                       float* __restrict__ out, int n)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    float t[3][3];
#pragma unroll
    for (int dj = 0; dj < 3; ++dj)
#pragma unroll
        for (int di = 0; di < 3; ++di)
            t[dj][di] = tex2D<float>(img, i + di - 0.5f, j + dj - 0.5f);   // texels i-1..i+1, j-1..j+1
    out[(size_t)r * n + c] = bilerp(t[1][1], t[1][2], t[2][1], t[2][2], a, b);
}
