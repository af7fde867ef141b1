// wrong: [token use] keeps the 32-word rows and has lane l add up column l (no conflict, but the task's arithmetic changed), then makes 992 more shared loads whose values it throws away, to bring its shared request count up to the solution's
// caught by: yours loads.unused_pct == 0
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
    for (unsigned r = 0; r < ROWS; ++r) sum += tile[r][lane];
    for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);

    // Counted like any other load, and used by nothing.
    unsigned base = (unsigned)__cvta_generic_to_shared(&tile[0][lane]);
    for (unsigned k = 0; k < ROWS * COLS - ROWS; ++k) {
        unsigned thrown;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(thrown) : "r"(base + (k % ROWS) * COLS * 4));
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
