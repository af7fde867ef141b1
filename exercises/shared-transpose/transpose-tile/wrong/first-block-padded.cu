// wrong: [hidden trace] pads the tile's rows in block (0, 0) only, the block every sampled trace holds, and leaves the other blocks' columns in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE * (TILE + 1)];
    const int pitch = (blockIdx.x == 0 && blockIdx.y == 0) ? TILE + 1 : TILE;

    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) tile[(threadIdx.y + dy) * pitch + threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x * pitch + threadIdx.y + dy];
    }
}
