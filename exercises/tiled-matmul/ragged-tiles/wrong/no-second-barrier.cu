// wrong: [block race] drops the barrier after the products, so a fast warp overwrites the tiles while another warp still multiplies them
// caught by: yours shared.races == 0
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads
// (TILE comes from the lesson: 16). The grid has ceil(n / TILE) blocks each way, so when n is
// not a multiple of TILE the last blocks reach past the edges of the matrices.

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
        // Past an edge a tile is padded with zeros: a zero product adds nothing, and every
        // thread still takes part in the barriers.
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
