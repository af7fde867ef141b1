// wrong: [off the point] keeps one contiguous run per thread and copies it in float4s: each lane's 16 bytes sit in a sector of their own, so half of every sector moved is wasted.
// caught by: yours global.pct_used >= 98
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long per = ((n + threads - 1) / threads + 3) / 4 * 4;
    long long begin = t * per;
    long long end = begin + per < n ? begin + per : n;
    long long i = begin;
    for (; i + 4 <= end; i += 4)
        *reinterpret_cast<float4*>(out + i) = *reinterpret_cast<const float4*>(in + i);
    for (; i < end; ++i) out[i] = in[i];
}
