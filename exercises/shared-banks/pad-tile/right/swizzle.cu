// Another layout with no spare word: row r keeps its 32 words, but element (r, c) is stored
// at column c ^ r (an XOR swizzle). At one step lane l reads row (l + k) % 32 at column
// c ^ row: the rows differ, so the swizzled columns, and with them the banks, differ too.
// The fill stays conflict-free: one warp's 32 words of a row go to 32 distinct columns.

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    __shared__ unsigned tile[ROWS][COLS];

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x) {
        const unsigned r = e / COLS, c = e % COLS;
        tile[r][c ^ r] = src[e];
    }
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r][c ^ r]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
