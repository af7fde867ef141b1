// wrong: [slow-variant timing] coalesced and every word once, but only the first warp of each block works: it reads the block's whole tile, 32 words a round, with an eighth of the block's loads in flight
// caught by: yours faster than solution by >= 0.87x
// on: gpu - the interpreter times nothing, and every count the CPU judges is the solution's
// out[i] = 3 * in[i] + 1, where `in` is pinned host memory mapped into the GPU.

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    if (threadIdx.x >= 32) {
        return;
    }
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    const int rounds = 16 * (int)blockDim.x / 32;
    for (int k = 0; k < rounds; ++k) {
        long long i = tile + (long long)k * 32 + threadIdx.x;
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
