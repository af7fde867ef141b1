// wrong: [slow-variant timing] reads the new layout right but drops __restrict__, so the compiler must assume out may overlap p and issues each load only after the previous store: one load in flight per thread instead of four.
// caught by: yours faster than solution by >= 0.9x
// on: gpu - the trace sees the same coalesced requests as the solution's; only a time shows how many loads wait at once

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* p, float* out, float dx, int n)
{
    const float* xs = p;
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = xs[i] + dx;
    }
}
