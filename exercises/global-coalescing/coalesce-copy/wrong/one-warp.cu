// wrong: [slow-variant timing] only the first warp of each block copies, with a coalesced grid-stride loop over those warps: every request is 4 sectors, all used, but an eighth of the threads keep too few loads in flight to fill the memory system.
// caught by: yours faster than solution by >= 0.83x
// on: gpu - the trace sees the same coalesced requests as the solution's; only a time shows the idle threads

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    if (threadIdx.x >= 32) return;  // one warp a block does the copy
    long long threads = (long long)gridDim.x * 32;
    for (long long i = (long long)blockIdx.x * 32 + threadIdx.x; i < n; i += threads)
        out[i] = in[i];
}
