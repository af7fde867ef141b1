// wrong: [unbounded] the loop over the last floats runs one too far (<= n) and writes past the end of `out`.
// caught by: correct
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = t; i < quads; i += threads) out4[i] = in4[i];
    for (long long i = 4 * quads + t; i <= n; i += threads) out[i] = in[i < n ? i : n - 1];
}
