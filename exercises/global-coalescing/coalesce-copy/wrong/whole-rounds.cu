// wrong: [one size] a coalesced loop that runs n / threads whole rounds and forgets the last part-filled one, so the end of the array is never copied unless n is a multiple of the grid.
// caught by: correct
// on: cpu

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long k = 0; k < n / threads; ++k) out[k * threads + t] = in[k * threads + t];
}
