// wrong: [one size] a float4 copy whose tail is copied a float a lane only when two or three floats are left over: with one left over the last float is never copied
// caught by: correct
// on: cpu
extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    const long long threads = (long long)gridDim.x * blockDim.x;
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long n4 = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = t; i < n4; i += threads) out4[i] = in4[i];
    const int rem = n & 3;
    const int tail = (rem & 2) ? rem : 0;   // "a pair and maybe one more"
    if (t < tail) out[4 * n4 + t] = in[4 * n4 + t];
}
