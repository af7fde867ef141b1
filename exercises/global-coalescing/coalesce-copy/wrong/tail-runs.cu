// wrong: [token use] a coalesced grid-stride copy for all but the last 1.25% of the floats, which each thread copies as a run of its own: 93.6% of the sector bytes used and 1.07x the solution's sectors, inside the old 90% and 1.1x bars (a red team's, passing every CPU check)
// caught by: yours global.pct_used >= 98
// on: cpu
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out, int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long tail = n / 80;
    long long m = n - tail;
    for (long long i = t; i < m; i += threads) out[i] = in[i];
    long long per = (tail + threads - 1) / threads;
    long long begin = m + t * per;
    long long end = begin + per < n ? begin + per : n;
    for (long long i = begin; i < end; ++i) out[i] = in[i];
}
