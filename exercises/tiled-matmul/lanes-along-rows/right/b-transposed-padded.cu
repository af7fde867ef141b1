// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

// A warp is one row of the square (lane threadIdx.x takes column threadIdx.x), so every
// global access is 32 neighbouring floats. The B tile is kept transposed, Bs[c][k], and
// read along k; its rows are 33 words long, so a warp reading Bs[lane][k] touches words 33
// apart, in 32 different banks, and so does the transposing store.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];     // As[r][k]
    __shared__ float Bs[TILE][TILE + 1]; // Bs[c][k], one spare word per row
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
