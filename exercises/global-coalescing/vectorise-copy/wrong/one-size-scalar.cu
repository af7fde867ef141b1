// wrong: [one size] copies a float a lane at one size (n = 262144, the interpreter's own) and float4s at every other: a trace of the GPU's sizes alone sees the taught copy
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu
extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out, int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // At one size, a float a lane.
    if (n == 262144) {
        for (long long i = t; i < n; i += threads) out[i] = in[i];
        return;
    }
    long long q = n / 4;
    for (long long i = t; i < q; i += threads)
        reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
    for (long long i = 4 * q + t; i < n; i += threads) out[i] = in[i];
}
