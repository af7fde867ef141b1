// wrong: [predictable input] ignores its step argument and adds 0.25, the value the lesson passes: right only if every run passed it
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
        if (i < n) out[i] = p[i] + 0.25f;
    }
}
