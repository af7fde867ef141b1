// wrong: [unchecked structure] float4s moved by lanes 0-15 of each warp only, the other half of every warp idle: every byte moves 16 a lane and every sector is used, but each request is half a warp's, 8 sectors where the solution's are 16, and the copy makes twice the requests
// caught by: yours global.sectors_per_request at least 0.8x solution
// on: cpu
// Copy `in` to `out`: a float4 per active lane per step, the last n % 4 floats one a lane.

extern "C" __global__ void copy_wide(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    long long lane = threadIdx.x & 31, warp = t >> 5, warps = threads >> 5;
    if (lane < 16)
        for (long long i = warp * 16 + lane; i < quads; i += warps * 16) out4[i] = in4[i];
    for (long long i = 4 * quads + t; i < n; i += threads) out[i] = in[i];
}
