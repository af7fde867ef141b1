// wrong: [one size] a float4 grid-stride copy whose tail is written only when three floats are left over, the remainder of 1000003 and 4099: with one or two left over, the last floats are never copied
// caught by: correct
// on: cpu
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long n4 = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = t; i < n4; i += threads) out4[i] = in4[i];
    if ((n & 3) == 3 && t < 3) out[n4 * 4 + t] = in[n4 * 4 + t];
}
