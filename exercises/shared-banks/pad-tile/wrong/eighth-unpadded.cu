// wrong: [hidden trace] pads the tile in seven blocks of eight and keeps 32-word rows in every eighth, and only in grids wider than the checked sizes (more than 301 blocks): a few blocks traced at fixed places would rarely hold one, a wide sample drawn anywhere nearly always does ((7/8)^50 is 0.1%)
// caught by: yours shared.conflicts_per_request == 0
// on: gpu - the CPU check traces the lesson's one block at its size, a GPU's check 64 or as many as 2^19 records hold

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    __shared__ unsigned tile[ROWS * (COLS + 1)];
    // Rows 32 words long put a column in one bank: a 32-way conflict for every read.
    const unsigned pitch = (gridDim.x > 301 && (blockIdx.x & 7) == 7) ? COLS : COLS + 1;

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x)
        tile[(e / COLS) * pitch + e % COLS] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = sum * 31u + tile[r * pitch + c];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
