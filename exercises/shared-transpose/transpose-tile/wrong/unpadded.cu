// wrong: [off the point] stages the square in a tile whose rows are 32 words long, so reading a column of it hits one bank 32 times.
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE];

    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) tile[threadIdx.y + dy][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y + dy];
    }
}
