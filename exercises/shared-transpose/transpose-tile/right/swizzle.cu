// The transpose through a 32 x 32 tile with no spare word: element (r, c) of the square is
// stored at column c ^ r of row r (an XOR swizzle). A warp storing row r writes columns
// c ^ r for its 32 values of c: 32 distinct banks. A warp reading column c of the square
// reads rows 0..31 at columns c ^ r: distinct again, so neither side conflicts.

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE];

    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        const int r = threadIdx.y + dy;
        int y = blockIdx.y * TILE + r;
        if (x < n && y < n) tile[r][threadIdx.x ^ r] = in[(size_t)y * n + x];
    }
    // Each output row takes a column that all eight warps stored.
    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        const int c = threadIdx.y + dy;
        int y = blockIdx.x * TILE + c;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}
