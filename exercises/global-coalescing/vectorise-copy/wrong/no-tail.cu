// wrong: [one size] copies the float4 body and forgets the last n % 4 floats, which make no whole float4.
// caught by: correct
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = t; i < n / 4; i += threads) out4[i] = in4[i];
}
