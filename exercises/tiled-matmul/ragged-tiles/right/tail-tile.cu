// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

// Another way to split the edge cases: along k, the whole tiles need tests only on the
// block's own rows and columns (which an edge block has past n), and the one ragged tile
// left over, where k runs past n too, gets a last step of its own with zeros past the edge.
// Every thread of the block runs every step, so all of them meet every barrier.

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
    // Whole tiles along k: t0 + tx and t0 + ty are inside, only row and col can be out.
    for (; t0 + TILE <= n; t0 += TILE) {
        As[ty][tx] = row < n ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = col < n ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        // The next tiles overwrite these.
        __syncthreads();
    }
    // The ragged tile, when n is not a multiple of TILE: t0 is the same in every thread.
    if (t0 < n) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
