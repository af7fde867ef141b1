// wrong: [off the point] reads the new layout right but gives each thread 4 neighbouring particles, so neighbouring lanes are 16 bytes apart and a request uses a quarter of the sectors it moves.
// caught by: yours global.pct_used >= 98
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k;
        if (i < n) out[i] = xs[i] + dx;
    }
}
