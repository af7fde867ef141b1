// Each block loads its 32 x 32 words into a shared tile; then every thread folds the whole
// tile into a checksum (sum = (sum ^ word) * 16777619, the step of the FNV-1a hash), row
// after row and each row left to right, lane l starting at row l so that no two lanes of a
// warp read the same row at the same time. A word's place in that order changes the
// checksum, and no other order of reads can rebuild it. Every thread writes its own.

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
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r][c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
