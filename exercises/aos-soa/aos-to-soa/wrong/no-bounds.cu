// wrong: [unbounded] drops the bounds test, so the last block reads and writes past the n particles when n is not a multiple of the block's share.
// caught by: correct
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        out[i] = xs[i] + dx;
    }
}
