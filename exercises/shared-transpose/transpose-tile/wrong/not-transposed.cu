// wrong: [wrong output] writes the tile back row for row instead of column for column, so each square lands in the transposed place but is not itself transposed.
// caught by: correct
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

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.y + dy][threadIdx.x];
    }
}
