// wrong: [one size] a float4 grid-stride copy, as the hint suggests, that drops the last n % 4 floats.
// caught by: correct
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = t; i < n / 4; i += threads) out4[i] = in4[i];
}
