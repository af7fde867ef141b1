// wrong: [unchecked structure] stages the square twice, through two tiles and an extra barrier: right and conflict-free, with twice the shared requests of one tile
// caught by: yours shared.requests at most 1.1x solution
// on: cpu
// out = the transpose of in through a shared tile: the block reads a 32 x 32 square along
// its rows, then writes the transposed square along the rows of `out`, so both global
// accesses are coalesced. The tile's rows are 33 words long so that reading a column
// visits 32 different banks. Elements outside the n x n matrix are neither read nor
// written.

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    __shared__ float tb[TILE][TILE + 1];

    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) tile[threadIdx.y + dy][threadIdx.x] = in[(size_t)y * n + x];
    }
    __syncthreads();
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) tb[threadIdx.y + dy][threadIdx.x] = tile[threadIdx.x][threadIdx.y + dy];
    __syncthreads();

    // The block's square, seen from `out`: its rows are the columns of the input square.
    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tb[threadIdx.y + dy][threadIdx.x];
    }
}
