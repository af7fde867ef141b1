// wrong: [token use] declares the tile with 33-word rows but indexes it as if its rows were 32 words long, so the spare word is never in the way and a column still sits in one bank
// caught by: yours shared.conflicts_per_request == 0
// on: cpu

#define ROWS 32
#define COLS 32

extern "C" __global__ void tile_sum(const unsigned* __restrict__ in,
                                    unsigned* __restrict__ out)
{
    // One spare word per row is allocated...
    __shared__ unsigned tile[ROWS * (COLS + 1)];

    // ...but element (r, c) is still put at word 32r + c.
    const unsigned* src = in + (size_t)blockIdx.x * ROWS * COLS;
    for (int e = threadIdx.x; e < ROWS * COLS; e += blockDim.x) tile[e] = src[e];
    __syncthreads();

    unsigned lane = threadIdx.x & 31;
    unsigned sum = 0;
    for (unsigned k = 0; k < ROWS; ++k) {
        unsigned r = (lane + k) & (ROWS - 1);
        for (unsigned c = 0; c < COLS; ++c) sum = (sum ^ tile[r * COLS + c]) * 16777619u;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
