// wrong: [unchecked structure] copies the whole array twice, two float4 grid-stride passes back to back: every request 16 sectors and every byte used, twice the traffic the copy needs, which only a time (or a sector total) would show.
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int pass = 0; pass < 2; ++pass)
        for (long long i = t; i < quads; i += threads) out4[i] = in4[i];
    for (long long i = 4 * quads + t; i < n; i += threads) out[i] = in[i];
}
