// out[i] = 3 * in[i] + 1, where `in` is pinned host memory mapped into the GPU: every load
// crosses the PCIe link. Each block covers a tile of 16 * blockDim.x words. This version
// gives each thread a run of 16 words of its own, so a warp's 32 lanes ask for words 64
// bytes apart: 32 sectors a request, 4 useful bytes in each. Make neighbouring lanes read
// neighbouring words, every word once.

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)threadIdx.x * 16 + k;
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
