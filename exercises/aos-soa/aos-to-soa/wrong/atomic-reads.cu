// wrong: [off the point] reads every x with `atomicOr(p, 0)`, a global read the loads' figures never see
// caught by: atomics
// on: cpu
#define PER_THREAD 4
extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = __uint_as_float(atomicOr((unsigned*)p + i, 0u)) + dx;
    }
}
