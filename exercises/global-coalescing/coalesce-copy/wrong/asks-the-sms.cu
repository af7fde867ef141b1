// wrong: [hidden trace] asks the hardware how many SMs it has (%nsmid) and copies with the coalesced grid-stride loop only where the count is small, as the CPU interpreter once said it was (0); on a GPU with many SMs every thread copies one contiguous run, as the starter does. The interpreter now says what a GPU says.
// caught by: yours global.pct_used >= 98
// on: cpu
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    unsigned nsm;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (nsm > 8) {
        long long per = (n + threads - 1) / threads;
        long long begin = t * per;
        long long end = begin + per < n ? begin + per : n;
        for (long long i = begin; i < end; ++i) out[i] = in[i];
    } else {
        for (long long i = t; i < n; i += threads) out[i] = in[i];
    }
}
