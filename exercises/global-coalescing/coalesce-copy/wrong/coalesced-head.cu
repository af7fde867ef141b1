// wrong: [token use] the first round of the grid is copied coalesced, one float per thread, and each thread then copies its own contiguous run of the rest, so nearly all the traffic still comes one sector per lane.
// caught by: yours global.pct_used >= 98
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = in[t];  // coalesced: the lanes of a warp take neighbouring floats

    // The rest, split into one run per thread as before.
    long long rest = n > threads ? n - threads : 0;
    long long per = (rest + threads - 1) / threads;
    long long begin = threads + t * per;
    long long end = begin + per < n ? begin + per : n;
    for (long long i = begin; i < end; ++i) out[i] = in[i];
}
