// wrong: [slow-variant timing] stages each step of a coalesced grid-stride loop through a shared tile with two barriers: every sector used, no extra traffic, but every block waits at each barrier, so it beats stride-32 and loses to the plain loop.
// caught by: yours faster than solution by >= 0.83x
// on: gpu - the trace counts the same sectors as the solution's; only a time shows the waits

extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    __shared__ float tile[256];  // one float per thread of the block
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += threads) {
        long long i = base + threadIdx.x;
        if (i < n) tile[threadIdx.x] = in[i];
        __syncthreads();
        if (i < n) out[i] = tile[threadIdx.x];
        __syncthreads();  // the tile is read before the next step overwrites it
    }
}
