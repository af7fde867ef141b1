// wrong: [block race] waits at `bar.sync 1, 32` instead of the block's barrier, so a warp reads tile columns other warps have not written
// caught by: race
// on: cpu
#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x;
    const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += ROWS_PER_PASS) {
        int x = x0 + tx, y = y0 + r;
        if (x < n && y < n) tile[r][tx] = in[(size_t)y * n + x];
    }
    asm volatile("bar.sync 1, 32;" ::: "memory");
    for (int c = threadIdx.y; c < TILE; c += ROWS_PER_PASS) {
        int oy = x0 + c, ox = y0 + tx;
        if (oy < n && ox < n) out[(size_t)oy * n + ox] = tile[tx][c];
    }
}
