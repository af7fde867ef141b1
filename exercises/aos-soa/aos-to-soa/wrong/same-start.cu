// wrong: [predictable input] every particle of the lesson starts at x = 1.5, so this writes 1.5 + dx without reading p at all: right only while the store holds that one position.
// caught by: correct
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = 1.5f + dx;
    }
}
