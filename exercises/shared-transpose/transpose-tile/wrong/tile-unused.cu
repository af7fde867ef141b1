// wrong: [token use] stages the square in a padded tile and reads it back, but only to check it, and writes the output straight from its registers to the transposed place: the shared reads are perfect and the writes still go down columns
// caught by: yours global.sectors at most 1.05x solution
// on: cpu

#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];

    float v[TILE / ROWS_PER_PASS];
    int x = blockIdx.x * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        v[dy / ROWS_PER_PASS] = (x < n && y < n) ? in[(size_t)y * n + x] : 0.0f;
        tile[threadIdx.y + dy][threadIdx.x] = v[dy / ROWS_PER_PASS];
    }
    __syncthreads();

    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int y = blockIdx.y * TILE + threadIdx.y + dy;
        // The tile gives back what this thread stored: the write need not wait for anyone.
        const float t = tile[threadIdx.y + dy][threadIdx.x];
        if (x < n && y < n) out[(size_t)x * n + y] = t == v[dy / ROWS_PER_PASS] ? t : v[dy / ROWS_PER_PASS];
    }
}
