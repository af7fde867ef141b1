// wrong: [predictable input] takes the lesson's word that both buffers hold ones and writes 12 per step without reading them: right on the lesson's fill, wrong on any other
// caught by: correct
// on: cpu
// Thread t < threads adds up, over `steps` steps, the four words of cold[(2 s) * threads + t],
// cold[(2 s + 1) * threads + t] and hot[h] (h from t, growing by threads, wrapping at hot_n).

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= threads) return;
    // Three uint4s of ones a step: nothing to keep in the L2 at all.
    out[tid] = 12u * (unsigned)steps;
}
