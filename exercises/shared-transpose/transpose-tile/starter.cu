// out = the transpose of in, both n x n floats, row-major. Blocks of 32 x 8 threads each
// cover a 32 x 32 square; n need not be a multiple of 32.
//
// Reads go along rows (neighbouring lanes, neighbouring addresses); writes go down
// columns.

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)x * n + y] = in[(size_t)y * n + x];
    }
}
