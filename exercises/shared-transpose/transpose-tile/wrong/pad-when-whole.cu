// wrong: [one size] sets the tile's row length from n, 33 words where n is a multiple of 32 as the lesson's is and 32 otherwise (a ragged n "has its own edge cases"), so at a ragged n every column read falls in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE * (TILE + 1)];
    const int pitch = n % TILE == 0 ? TILE + 1 : TILE;

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
