// wrong: [one size] copies in runs a thread, the lanes of a warp a run apart, at one size (n = 262144, the interpreter's own), and coalesced at every other: a trace of the GPU's sizes alone sees the taught copy
// caught by: yours global.pct_used >= 98
// on: cpu
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // At one size, a run of elements a thread, lanes a run apart.
    if (n == 262144) {
        long long per = (n + threads - 1) / threads;
        long long begin = t * per;
        long long end = begin + per < n ? begin + per : n;
        for (long long i = begin; i < end; ++i) out[i] = in[i];
        return;
    }
    for (long long i = t; i < n; i += threads) out[i] = in[i];
}
