// wrong: [token use] reads a float4 per lane but writes its four floats one by one: half the copy's traffic, the stores, still moves 4 bytes per lane per instruction, spread 16 bytes apart.
// caught by: yours global.pct_used >= 90
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    for (long long i = t; i < quads; i += threads) {
        float4 v = in4[i];
        out[4 * i] = v.x;
        out[4 * i + 1] = v.y;
        out[4 * i + 2] = v.z;
        out[4 * i + 3] = v.w;
    }
    for (long long i = 4 * quads + t; i < n; i += threads) out[i] = in[i];
}
