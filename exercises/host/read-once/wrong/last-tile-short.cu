// wrong: [one size] coalesced rounds, but a last, partial tile runs only 15 of its 16 rounds: right wherever the grid's last block holds at most 3840 words, as it does at most sizes
// caught by: correct
// on: cpu
// out[i] = 3 * in[i] + 1, where `in` is pinned host memory mapped into the GPU. In round k
// the block's threads read the k-th blockDim.x words of its tile: a warp's 32 lanes ask for
// 128 neighbouring bytes, four whole sectors, and every word crosses the link once.

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    // A partial tile's last round was thought to hold nothing.
    const bool partial = blockIdx.x == gridDim.x - 1 && n % (blockDim.x * 16) != 0;
    const int rounds = partial ? 15 : 16;
    for (int k = 0; k < rounds; ++k) {
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
