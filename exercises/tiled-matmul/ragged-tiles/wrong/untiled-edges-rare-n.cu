// wrong: [one size] when n % 16 is 2 or 13 the edge blocks skip the tiles and multiply straight from global memory: no size the exercise checked had either remainder until every remainder by 16 had one on the CPU
// caught by: yours global.staged_pct == 100
// on: cpu
extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int cc = min(col, n - 1);
    const int rem = n % TILE;
    const bool edge = (blockIdx.x + 1) * TILE > n || (blockIdx.y + 1) * TILE > n;
    if (edge && (rem == 2 || rem == 13)) {
        if (row < n && col < n) {
            float a = 0.0f;
            for (int k = 0; k < n; ++k) a += A[(size_t)row * n + k] * B[(size_t)k * n + col];
            C[(size_t)row * n + col] = a;
        }
        return;
    }
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = B[(size_t)min(t0 + ty, n - 1) * n + cc];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
