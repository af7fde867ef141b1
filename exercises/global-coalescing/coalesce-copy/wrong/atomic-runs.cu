// wrong: [off the point] keeps each thread's run and moves every float with atomics, plus one coalesced copy for show
// caught by: atomics
// on: cpu
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) out[t] = in[t];   // token: one coalesced load and store
    long long per = (n + threads - 1) / threads;
    long long begin = t * per;
    long long end = begin + per < n ? begin + per : n;
    unsigned* src = (unsigned*)in;
    unsigned* dst = (unsigned*)out;
    for (long long i = begin; i < end; ++i) atomicExch(dst + i, atomicOr(src + i, 0u));
}
