// wrong: [one size] the squares on the right edge of odd block rows, where n % 32 is 8 or more, read their tile back in their own order and write it down columns of the output, untransposed through the tile: at n = 1000 they are 1.5% of the matrix, and every sector count but the bytes used is the solution's
// caught by: yours global.pct_used at least 0.999x solution
// on: cpu
#define TILE 32
#define ROWS_PER_PASS 8
extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) tile[threadIdx.y + dy][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();
    bool edge = (blockIdx.x == gridDim.x - 1) && ((n & 31) >= 8) && (blockIdx.y & 1);
    if (edge) {
        for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
            int y = blockIdx.y * TILE + threadIdx.y + dy;
            if (x < n && y < n) out[(size_t)x * n + y] = tile[threadIdx.y + dy][threadIdx.x];
        }
        return;
    }
    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y + dy];
    }
}
