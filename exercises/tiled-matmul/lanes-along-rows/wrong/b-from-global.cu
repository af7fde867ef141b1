// wrong: [unchecked structure] swaps the mapping and stages the A tile, but drops the B tile and reads B from global memory in the inner loop: coalesced, conflict-free, and each element of B loaded once per warp that needs it instead of once per block
// caught by: yours global.requests at most 1.1x solution
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE]; // As[r][k]: row r of the square, k within the tile
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        __syncthreads();
        const int kend = min(TILE, n - t0);
        if (col < n)
            for (int k = 0; k < kend; ++k) acc += As[ty][k] * B[(size_t)(t0 + k) * n + col];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
