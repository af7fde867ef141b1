// wrong: [token use] makes the global loads coalesced but leaves lanes along rows in the products, so a warp reads a column of the A tile: 32 lanes in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + tx;
    const int col = blockIdx.x * TILE + ty;
    // Each thread loads the elements a coalesced warp would load.
    const int lrow = blockIdx.y * TILE + ty, lcol = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (lrow < n && t0 + tx < n) ? A[(size_t)lrow * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && lcol < n) ? B[(size_t)(t0 + ty) * n + lcol] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
