// wrong: [token use] stages every whole k-tile, but when the ragged last one holds 4 columns or fewer (n % 16 <= 4) reads its few columns of A and B straight from global memory in the product loop: the requests and sectors stay inside the bars (1.43x the solution's requests at n = 100) and the timed n = 1000 takes the normal path
// caught by: yours global.staged_pct == 100
// on: cpu

extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    int t0 = 0;
    for (; t0 + TILE <= n; t0 += TILE) {
        As[ty][tx] = row < n ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = col < n ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (n - t0 > 4) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    } else if (row < n && col < n) {
        // A few columns left: straight from global memory, no tile.
        for (int k = t0; k < n; ++k) acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
