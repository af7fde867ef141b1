// wrong: [hidden trace] where n > 4096, one block in 256 (by a hash of its indices) reads its square's columns at an unpadded pitch, 32 ways in one bank; every block runs the same instructions, only the pitch in a register differs
// caught by: yours shared.conflicts_per_request == 0
// on: gpu - the interpreter traces a sample of the lesson-size grid's blocks and seldom holds an odd one; a GPU check's census costs every block's shared requests
#define TILE 32
#define ROWS_PER_PASS 8
extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE * (TILE + 1)];
    const unsigned h = (blockIdx.x * 2654435761u) ^ (blockIdx.y * 40503u);
    const int pitch = (n > 4096 && (h & 255u) == 77u) ? TILE : TILE + 1;
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
