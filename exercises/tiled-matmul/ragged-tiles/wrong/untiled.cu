// wrong: [off the point] gives up the tiles and reads each row and column from global memory, with the bounds right
// caught by: yours global.requests less than naive by >= 13.6x
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
    C[(size_t)row * n + col] = acc;
}
