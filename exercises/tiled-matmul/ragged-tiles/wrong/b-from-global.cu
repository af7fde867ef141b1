// wrong: [unchecked structure] stages the A tile with zeros past the edges but reads B straight from global memory in the inner loop, so each element of B is still loaded once per thread that needs it
// caught by: yours global.requests at most 1.5x solution
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            if (t0 + k < n && col < n) acc += As[ty][k] * B[(size_t)(t0 + k) * n + col];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
