// wrong: [off the point] each lane copies two neighbouring float4s per step, so the lanes of one request are 32 bytes apart: 32 sectors per request (the sector count looks wide enough) with half of every sector unused.
// caught by: yours global.pct_used >= 90
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long j = t; j < quads / 2; j += threads) {
        out4[2 * j] = in4[2 * j];
        out4[2 * j + 1] = in4[2 * j + 1];
    }
    for (long long i = quads / 2 * 8 + t; i < n; i += threads) out[i] = in[i];
}
