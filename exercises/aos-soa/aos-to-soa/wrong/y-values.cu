// wrong: [wrong output] reads the second block of n floats, the y values, instead of the first, the x values.
// caught by: correct
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* ys = p + n;
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = ys[i] + dx;
    }
}
