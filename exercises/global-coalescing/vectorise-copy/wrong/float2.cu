// wrong: [off the point] moves 8 bytes per lane with float2, half of what the task asks: 8 sectors per request, and none of its bytes moved 16 a lane.
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long pairs = n / 2;
    const float2* in2 = reinterpret_cast<const float2*>(in);
    float2* out2 = reinterpret_cast<float2*>(out);
    for (long long i = t; i < pairs; i += threads) out2[i] = in2[i];
    for (long long i = 2 * pairs + t; i < n; i += threads) out[i] = in[i];
}
