// wrong: [off the point] leaves the 32-word rows and changes the arithmetic instead: lane l walks each row starting at column l, so the lanes meet 32 banks with no padding; every word is still read once, but in another order, and the checksum differs
// caught by: correct
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
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r][(c + lane) & (COLS - 1)]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
