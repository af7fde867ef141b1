// wrong: [token use] only each thread's first particle follows the coalesced mapping; the other three are three neighbours, so three quarters of the reads and writes have lanes 12 bytes apart.
// caught by: yours global.pct_used >= 98
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    unsigned base = blockIdx.x * (blockDim.x * PER_THREAD);
    unsigned i = base + threadIdx.x;  // lanes side by side
    if (i < n) out[i] = xs[i] + dx;
    // The block's other 3 x 256 particles, three neighbours per thread.
#pragma unroll
    for (int k = 0; k < PER_THREAD - 1; ++k) {
        unsigned j = base + blockDim.x + threadIdx.x * (PER_THREAD - 1) + k;
        if (j < n) out[j] = xs[j] + dx;
    }
}
