// wrong: [off the point] stores the tile transposed, so the sums read it without conflicts, but the fill now writes a warp's 32 words down one column: every fill request falls in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    // tile[c][r] holds element (r, c).
    __shared__ unsigned tile[COLS][ROWS];

    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x) tile[e % COLS][e / COLS] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[c][r]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
