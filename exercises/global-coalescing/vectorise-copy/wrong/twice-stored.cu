// wrong: [unchecked structure] a float4 grid-stride copy that copies float4s i and i + threads each step but still steps by threads, so every float4 past the first round is stored twice: 16 bytes a lane, every sector used, and nearly twice the traffic, which no sector total checks here.
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
    for (long long i = t; i < quads; i += threads) {
        out4[i] = in4[i];
        if (i + threads < quads) out4[i + threads] = in4[i + threads];
    }
    for (long long i = 4 * quads + t; i < n; i += threads) out[i] = in[i];
}
