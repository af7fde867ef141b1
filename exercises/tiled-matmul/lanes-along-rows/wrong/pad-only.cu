// wrong: [off the point] keeps lanes along rows and pads the A tile, which ends the bank conflicts, but a warp still loads and stores 32 floats a row apart
// caught by: yours global.pct_used at least 0.9x solution
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE + 1]; // As[r][k]: row r of the square, k within the tile
    __shared__ float Bs[TILE][TILE]; // Bs[k][c]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + tx;
    const int col = blockIdx.x * TILE + ty;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[tx][ty] = (row < n && t0 + ty < n) ? A[(size_t)row * n + t0 + ty] : 0.0f;
        Bs[tx][ty] = (t0 + tx < n && col < n) ? B[(size_t)(t0 + tx) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
