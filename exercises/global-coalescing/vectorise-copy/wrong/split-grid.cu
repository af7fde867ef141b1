// wrong: [hidden trace] the even blocks copy the first half of the array in float4s, the odd blocks copy the second half one float per lane: a trace that samples every other block sees only float4s.
// caught by: yours global.wide_bytes_pct at least 0.99x solution
// on: cpu

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long pairs = gridDim.x / 2;  // the grid is an even number of blocks
    long long threads = pairs * blockDim.x;  // threads on each half
    long long t = (long long)(blockIdx.x / 2) * blockDim.x + threadIdx.x;
    long long quads = n / 8;  // the first half, in whole float4s
    if (blockIdx.x % 2 == 0) {
        const float4* in4 = reinterpret_cast<const float4*>(in);
        float4* out4 = reinterpret_cast<float4*>(out);
        for (long long i = t; i < quads; i += threads) out4[i] = in4[i];
    } else {
        for (long long i = 4 * quads + t; i < n; i += threads) out[i] = in[i];
    }
}
