// wrong: [hidden trace] gives lane threadIdx.x a column of C in block (0, 0), the block a one-block trace of the lesson looks at, and keeps lanes along rows in every other block
// caught by: yours global.pct_used at least 0.9x solution
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE]; // As[r][k]: row r of the square, k within the tile
    __shared__ float Bs[TILE][TILE]; // Bs[k][c]
    // Which thread index runs along the square's columns: x in block (0, 0), y elsewhere.
    const bool first = blockIdx.x == 0 && blockIdx.y == 0;
    const int r = first ? threadIdx.y : threadIdx.x;
    const int c = first ? threadIdx.x : threadIdx.y;
    const int row = blockIdx.y * TILE + r;
    const int col = blockIdx.x * TILE + c;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[r][c] = (row < n && t0 + c < n) ? A[(size_t)row * n + t0 + c] : 0.0f;
        Bs[r][c] = (t0 + r < n && col < n) ? B[(size_t)(t0 + r) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[r][k] * Bs[k][c];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
