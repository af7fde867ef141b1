// wrong: [token use] stages only the left 16 columns of the block's words, in a tile with 17-word rows, and reads the right 16 straight from global memory: the shared reads are perfect, and half of the sum never touches them
// caught by: yours global.sectors at most 1.1x solution
// on: cpu

#define ROWS 32
#define COLS 32
#define HALF (COLS / 2)

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    // 17 is odd, so element (r, c) in bank (17r + c) % 32 spreads a column over 32 banks.
    __shared__ unsigned tile[ROWS][HALF + 1];

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    // Filled a column at a time: a warp's 32 rows of one column, 32 banks.
    for (int e = threadIdx.x; e < ROWS * HALF; e += blockDim.x) tile[e % ROWS][e / ROWS] = src[(e % ROWS) * COLS + e / ROWS];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < HALF; ++c) sum = (sum ^ tile[r][c]) * 16777619u;
        for (unsigned c = HALF; c < COLS; ++c) sum = (sum ^ src[r * COLS + c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
