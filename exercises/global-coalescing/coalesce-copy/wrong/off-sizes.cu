// wrong: [one size] coalesced at every size it can know of (the lesson's n, its editing size and every fixed size, none above 1000003), per-thread runs at any other n
// caught by: yours global.pct_used >= 98
// on: gpu - at the size every check on a GPU draws afresh (drawn_size), which the CPU does not run: at every size the CPU checks the kernel is coalesced
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (!(n > 1000003 && n != 268435456 && n != 33554432)) {
        for (long long i = t; i < n; i += threads) out[i] = in[i];
        return;
    }
    long long per = (n + threads - 1) / threads;
    long long begin = t * per;
    long long end = begin + per < n ? begin + per : n;
    for (long long i = begin; i < end; ++i) out[i] = in[i];
}
