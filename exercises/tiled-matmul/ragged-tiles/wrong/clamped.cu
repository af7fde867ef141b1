// wrong: [wrong output] clamps indices past an edge to the last row or column instead of padding with zeros, so the partial tiles add products twice
// caught by: correct
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        // Past an edge, take the nearest element inside the matrix.
        As[ty][tx] = A[(size_t)min(row, n - 1) * n + min(t0 + tx, n - 1)];
        Bs[ty][tx] = B[(size_t)min(t0 + ty, n - 1) * n + min(col, n - 1)];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
