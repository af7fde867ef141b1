// wrong: [one size] a float4 grid-stride copy when n is a multiple of 4, and the old one run per thread otherwise: coalesced at the lesson's size, one sector per lane at every other.
// caught by: yours global.pct_used >= 98
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n % 4 == 0) {
        const float4* in4 = reinterpret_cast<const float4*>(in);
        float4* out4 = reinterpret_cast<float4*>(out);
        for (long long i = t; i < n / 4; i += threads) out4[i] = in4[i];
        return;
    }
    // A length that makes no whole float4s: fall back to the plain loop.
    long long per = (n + threads - 1) / threads;
    long long begin = t * per;
    long long end = begin + per < n ? begin + per : n;
    for (long long i = begin; i < end; ++i) out[i] = in[i];
}
