// wrong: [off the point] a grid-stride loop whose thread numbering puts neighbouring lanes gridDim.x floats apart, so a warp's 32 floats fall in 32 different sectors.
// caught by: yours global.pct_used >= 98
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)threadIdx.x * gridDim.x + blockIdx.x;
    for (long long i = t; i < n; i += threads) out[i] = in[i];
}
