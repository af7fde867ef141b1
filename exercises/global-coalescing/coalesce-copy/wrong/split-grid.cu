// wrong: [hidden trace] the even blocks copy the first half of the array with a coalesced grid-stride loop and the odd blocks copy the rest in one run per thread: a trace that samples every other block sees only the coalesced half.
// caught by: yours global.pct_used >= 98
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long pairs = gridDim.x / 2;  // the grid is an even number of blocks
    long long half = n / 2;
    long long threads = pairs * blockDim.x;  // threads on each half
    long long t = (long long)(blockIdx.x / 2) * blockDim.x + threadIdx.x;
    if (blockIdx.x % 2 == 0) {
        for (long long i = t; i < half; i += threads) out[i] = in[i];
    } else {
        long long rest = n - half;
        long long per = (rest + threads - 1) / threads;
        long long begin = half + t * per;
        long long end = begin + per < n ? begin + per : n;
        for (long long i = begin; i < end; ++i) out[i] = in[i];
    }
}
