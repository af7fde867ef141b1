// wrong: [unbounded] coalesced, but without the bounds check: the last tile reads past the end of the host buffer and writes past the end of `out` when n is not a multiple of the tile.
// caught by: correct
// on: cpu

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
        out[i] = 3u * in[i] + 1u;
    }
}
