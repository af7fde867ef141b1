// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

// Another way past the edges: the tiles are loaded only where they lie inside the matrices
// (the rest of a tile is left as it was), and the inner loop stops at the matrix's last k,
// so the stale words past the edge are never multiplied. Threads with no output of their
// own still load their part of the tiles and meet every barrier.

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
        if (row < n && t0 + tx < n) As[ty][tx] = A[(size_t)row * n + t0 + tx];
        if (t0 + ty < n && col < n) Bs[ty][tx] = B[(size_t)(t0 + ty) * n + col];
        __syncthreads();
        const int kend = min(TILE, n - t0);
        for (int k = 0; k < kend; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
