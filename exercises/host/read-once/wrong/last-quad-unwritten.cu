// wrong: [one size] whole quads in 16-byte loads, the tail as (n - 1) / 4 quads and n & 3 words: when n is a multiple of 4 the last four words are never written, and no CPU size was one
// caught by: correct
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    uint4* out4 = reinterpret_cast<uint4*>(out);
    long long quads = ((long long)n - 1) / 4;
    long long tile = (long long)blockIdx.x * blockDim.x * 4;
    for (int k = 0; k < 4; ++k) {
        long long q = tile + (long long)k * blockDim.x + threadIdx.x;
        if (q < quads) {
            uint4 v = in4[q];
            v.x = 3u * v.x + 1u; v.y = 3u * v.y + 1u; v.z = 3u * v.z + 1u; v.w = 3u * v.w + 1u;
            out4[q] = v;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        long long i = quads * 4 + threadIdx.x;
        out[i] = 3u * in[i] + 1u;
    }
}
