// wrong: [one size] tiles with zero padding where n is a multiple of 16 or small (n <= 64: the ragged sizes 33 and 47), and reads every row and column straight from global memory for a ragged n past that, such as n = 100 and the GPU's n = 1000
// caught by: yours global.requests at most 1.5x solution
// on: cpu
extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    // Ragged and past the sizes a CPU check runs (33, 47): each output from global memory.
    if (n % TILE != 0 && n > 64) {
        if (row < n && col < n) {
            float acc = 0.0f;
            for (int k = 0; k < n; ++k) acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
            C[(size_t)row * n + col] = acc;
        }
        return;
    }
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
