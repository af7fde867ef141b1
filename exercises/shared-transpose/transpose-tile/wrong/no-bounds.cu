// wrong: [unbounded] drops the tests against n, so the blocks on the right and bottom edges read and write outside the matrix when n is not a multiple of 32.
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
        tile[threadIdx.y + dy][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y + dy];
    }
}
