// Copy `in` to `out`: n floats. The grid is fixed (blocks of 256 threads, far fewer
// threads than elements), so every thread copies many elements.
//
// This version gives each thread one contiguous run of the array.

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long per = (n + threads - 1) / threads;
    long long begin = t * per;
    long long end = begin + per < n ? begin + per : n;
    for (long long i = begin; i < end; ++i) out[i] = in[i];
}
