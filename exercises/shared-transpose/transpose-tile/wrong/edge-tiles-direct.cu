// wrong: [one size] stages only the whole 32 x 32 squares in the padded tile and lets the squares cut by the matrix's edge write straight to their transposed place, a column at a time: every square is whole at the lesson's n, and at a ragged n the edge writes scatter
// caught by: yours global.pct_used at least 0.999x solution
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];

    const bool whole = (blockIdx.x + 1) * TILE <= n && (blockIdx.y + 1) * TILE <= n;
    int x = blockIdx.x * TILE + threadIdx.x;
    if (!whole) {
        // The edge: few elements, done the simple way.
        for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
            int y = blockIdx.y * TILE + threadIdx.y + dy;
            if (x < n && y < n) out[(size_t)x * n + y] = in[(size_t)y * n + x];
        }
        return;
    }
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        tile[threadIdx.y + dy][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y + dy];
    }
}
