// wrong: [token use] A never read from a shared tile: each thread loads its element of the A tile into a register and the row's lanes hand it along by shuffles; B is staged in its tile and read from it twice per product (a volatile re-read averaged with itself, exactly B), which makes up the shared requests A no longer makes
// caught by: yours shuffles == 0
// on: cpu
extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float Bs[TILE][TILE];
    volatile float (*vB)[TILE] = Bs;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int half = (threadIdx.x + TILE * threadIdx.y) & 31 & ~(TILE - 1);
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        float a = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            float ak = __shfl_sync(0xffffffffu, a, half + k);
            float b = 0.5f * (vB[k][tx] + vB[k][tx]);
            acc += ak * b;
        }
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
