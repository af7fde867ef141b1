// right: each warp reads its own contiguous 512-word slab of the tile, 32 neighbouring words a round (the block tile split by warp, not by round).
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    int w = threadIdx.x >> 5, l = threadIdx.x & 31;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)w * 512 + ((k * 32 + l) % 512);
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
