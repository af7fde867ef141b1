// wrong: [one size] coalesced at every size it can know of (the lesson's n, its editing size and every fixed size, none above 70003), each lane's particles as runs at any other n
// caught by: yours global.pct_used >= 98
// on: gpu - at the size every check on a GPU draws afresh (drawn_size), which the CPU does not run: at every size the CPU checks the kernel is coalesced
#define PER_THREAD 4
extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    if (n > 70003 && n != 33554432 && n != 8388608) {
        unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
        for (int k = 0; k < PER_THREAD; ++k) {
            unsigned i = first + k;
            if (i < n) out[i] = p[i] + dx;
        }
        return;
    }
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = p[i] + dx;
    }
}
