// out[i] = 3 * in[i] + 1, where `in` is pinned host memory mapped into the GPU. Each lane
// reads four neighbouring words as one uint4, so a warp's request covers 512 neighbouring
// bytes, sixteen whole sectors; a tile of 16 * blockDim.x words is four rounds of that. The
// words past the last whole uint4 (n % 4 of them, in the last tile) are read one at a time.

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    uint4* out4 = reinterpret_cast<uint4*>(out);
    long long tile4 = (long long)blockIdx.x * blockDim.x * 4;
    for (int k = 0; k < 4; ++k) {
        long long v = tile4 + (long long)k * blockDim.x + threadIdx.x;
        if (4 * v + 3 < n) {
            uint4 x = in4[v];
            out4[v] = make_uint4(3u * x.x + 1u, 3u * x.y + 1u, 3u * x.z + 1u, 3u * x.w + 1u);
        } else {
            for (long long i = 4 * v; i < n; ++i) out[i] = 3u * in[i] + 1u;
        }
    }
}
