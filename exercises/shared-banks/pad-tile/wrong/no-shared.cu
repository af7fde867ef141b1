// wrong: [off the point] drops the shared tile and reads the words from global memory in the same order: no bank conflicts because no banks, and not what the task asks
// caught by: yours makes shared loads
// on: cpu

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ src[r * COLS + c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
