// wrong: [one size] chooses the row length from the grid, padding only where the block count is a power of two as the lesson's sizes are, so any other grid reads columns from one bank
// caught by: yours shared.load_wavefronts_per_request == 1
// on: cpu

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    __shared__ unsigned tile[ROWS * (COLS + 1)];
    // Tuned on the lesson's grid and left so.
    const unsigned pitch = (gridDim.x & (gridDim.x - 1)) == 0 ? COLS + 1 : COLS;

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x) tile[(e / COLS) * pitch + e % COLS] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r * pitch + c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
