// wrong: [slow-variant timing] the padded tile, coalesced and conflict-free, but only the first warp of each block moves data while the other seven wait at the barrier: every traced figure is the solution's; only a time tells.
// caught by: yours faster than solution by >= 0.87x
// on: gpu - the traces are the solution's; an eighth of the threads moving the tile shows only in its time
// A transpose through a padded shared tile whose 32 rows one warp walks in and out alone.
#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    if (threadIdx.y == 0) {
        int x = blockIdx.x * TILE + threadIdx.x;
        for (int dy = 0; dy < TILE; ++dy) {
            int y = blockIdx.y * TILE + dy;
            if (x < n && y < n) tile[dy][threadIdx.x] = in[(size_t)y * n + x];
        }
    }
    __syncthreads();
    if (threadIdx.y == 0) {
        int x = blockIdx.y * TILE + threadIdx.x;
        for (int dy = 0; dy < TILE; ++dy) {
            int y = blockIdx.x * TILE + dy;
            if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x][dy];
        }
    }
}
