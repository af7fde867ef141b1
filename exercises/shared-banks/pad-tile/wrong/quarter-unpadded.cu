// wrong: [hidden trace] pads the tile in three blocks of four and keeps 32-word rows in every fourth, and only in grids wider than the checked sizes (more than 301 blocks): a few blocks traced at fixed places would rarely hold one, the 30 or so a GPU's check draws anywhere nearly always do ((3/4)^30 is 0.02%)
// caught by: yours shared.conflicts_per_request == 0
// on: gpu - the CPU check traces the lesson's one block at its size, a GPU's check 64 or as many as 2^18 records hold

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    __shared__ unsigned tile[ROWS * (COLS + 1)];
    // Rows 32 words long put a column in one bank: a 32-way conflict for every read.
    const unsigned pitch = (gridDim.x > 301 && (blockIdx.x & 3) == 3) ? COLS : COLS + 1;

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x)
        tile[(e / COLS) * pitch + e % COLS] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r * pitch + c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
