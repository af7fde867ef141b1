// wrong: [off the point] no shared tile at all; it turns the problem round, reading down columns and writing along rows, which moves the uncoalesced half from the writes to the reads.
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = in[(size_t)x * n + y];
    }
}
