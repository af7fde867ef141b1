// wrong: [off the point] keeps a lane on each row of C, as the starter does, pads the A tile and stages C through a third padded tile so that its stores run along rows: coalesced and conflict-free, but the mapping is the starter's
// caught by: yours smem at most 1.1x solution
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

// Lane threadIdx.x takes row threadIdx.x of the block's square, and threadIdx.y its column.


extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE + 1]; // As[r][k], padded
    __shared__ float Bs[TILE][TILE];     // Bs[k][c]
    __shared__ float Cs[TILE][TILE + 1]; // the square of C, to store it along rows
    const int tx = threadIdx.x, ty = threadIdx.y;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        const int ra = blockIdx.y * TILE + ty, cb = blockIdx.x * TILE + tx;
        As[ty][tx] = (ra < n && t0 + tx < n) ? A[(size_t)ra * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && cb < n) ? B[(size_t)(t0 + ty) * n + cb] : 0.0f;
        __syncthreads();
        // Still the starter's mapping: lane tx takes row tx, threadIdx.y column ty.
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    Cs[tx][ty] = acc;
    __syncthreads();
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    if (row < n && col < n) C[(size_t)row * n + col] = Cs[ty][tx];
}
