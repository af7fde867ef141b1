// wrong: [off the point] unrolls the coalesced loop by two, copying i and i + threads each step, but still steps by threads, so every float past the first round is stored twice (the compiler keeps the load for the next step): every sector used, half as much traffic again as the copy needs, which the caches hide from the time.
// caught by: yours global.sectors at most 1.02x solution
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) {
        out[i] = in[i];
        if (i + threads < n) out[i + threads] = in[i + threads];
    }
}
