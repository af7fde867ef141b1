// wrong: [off the point] no texture: the two image columns a block needs (257 texels each) are staged in shared memory once and blended from there; reads still one sector per image row, global traffic far above the solution (which reads no global memory)
// caught by: yours global.load_requests == 0
// on: cpu
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
    // Blocks of 256 threads along c, one row r: the outputs need texels (i, i+1) x (j0 .. j0+256).
    __shared__ float col[2][257 + 1];
    int c0 = blockIdx.x * blockDim.x, r = blockIdx.y;
    int i = (int)floorf(r + FX), j0 = (int)floorf(c0 + FY);
    // texel (i + k, j0 + t) for k in 0,1, t in 0..256: each is a column of the image: one
    // sector per lane either way, so read them as rows of the transposed index instead.
    for (int t = threadIdx.x; t < 257; t += blockDim.x) {
        col[0][t] = in[(size_t)clampi(j0 + t, n) * n + clampi(i, n)];
        col[1][t] = in[(size_t)clampi(j0 + t, n) * n + clampi(i + 1, n)];
    }
    __syncthreads();
    int c = c0 + threadIdx.x;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    float a = x - i, b = y - floorf(y);
    int t = (int)floorf(y) - j0;
    out[(size_t)r * n + c] = bilerp(col[0][t], col[1][t], col[0][t + 1], col[1][t + 1], a, b);
}
