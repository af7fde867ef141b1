// wrong: [off the point] swaps the mapping but keeps the B tile transposed and reads it along k, so a warp reads a column of it: 32 lanes in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE]; // As[r][k]: row r of the square, k within the tile
    __shared__ float Bs[TILE][TILE]; // Bs[c][k]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[tx][ty] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[tx][k];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
