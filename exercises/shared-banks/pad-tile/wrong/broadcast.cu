// wrong: [off the point] changes the arithmetic, not the tile: with r = k every lane reads the same word, a broadcast, which has no conflict and is not the row-per-lane access the task keeps
// caught by: yours shared.load_words_per_request >= 32
// on: cpu

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    __shared__ unsigned tile[ROWS][COLS];

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x) tile[e / COLS][e % COLS] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = k;
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r][c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
