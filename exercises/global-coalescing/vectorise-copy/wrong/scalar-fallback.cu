// wrong: [one size] float4s when n is a multiple of 4, and the starter's one float per lane for every other length, where the task asks for any n: wide at the lesson's size, 4 bytes per lane elsewhere.
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n % 4 == 0) {
        const float4* in4 = reinterpret_cast<const float4*>(in);
        float4* out4 = reinterpret_cast<float4*>(out);
        for (long long i = t; i < n / 4; i += threads) out4[i] = in4[i];
    } else {
        for (long long i = t; i < n; i += threads) out[i] = in[i];
    }
}
