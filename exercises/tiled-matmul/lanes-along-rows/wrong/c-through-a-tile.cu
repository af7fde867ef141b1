// wrong: [off the point] keeps a lane on each row of C, pads A's tile a word a row so its column reads do not conflict, loads both tiles coalesced, and turns C around through A's tile to store it along rows: the smem bar sees 1.02x the solution's bytes, the stores are coalesced, and the mapping the task asks to change is the starter's (a red team's, passing every CPU check)
// caught by: yours global.relayed_pct == 0
// on: cpu
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

// Lane threadIdx.x takes row threadIdx.x of the block's square, and threadIdx.y its column.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE + 1]; // As[r][k], padded so a column read is conflict-free
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    // Loads coalesced: lane tx loads word tx of a tile row.
    const int lrow = blockIdx.y * TILE + ty;
    const int lcol = blockIdx.x * TILE + tx;
    // Compute mapping unchanged: lane takes a row of C.
    const int row = blockIdx.y * TILE + tx;
    const int col = blockIdx.x * TILE + ty;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (lrow < n && t0 + tx < n) ? A[(size_t)lrow * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && lcol < n) ? B[(size_t)(t0 + ty) * n + lcol] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    As[tx][ty] = acc;
    __syncthreads();
    if (lrow < n && lcol < n) C[(size_t)lrow * n + lcol] = As[ty][tx];
}
