// wrong: [one size] 16-byte loads, coalesced, and the last n % 4 words done as one odd word and a pair before it counted back from (n | 1) - 1: right where n % 4 is 0, 1 or 3; at 2 it writes past the end and never the word two before it
// caught by: correct
// on: cpu

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    const long long tile = (long long)blockIdx.x * blockDim.x * 16;  // words
    const int n4 = n / 4;
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    uint4* out4 = reinterpret_cast<uint4*>(out);
    for (int k = 0; k < 4; ++k) {
        long long q = tile / 4 + (long long)k * blockDim.x + threadIdx.x;
        if (q < n4) {
            uint4 v = in4[q];
            v.x = 3u * v.x + 1u; v.y = 3u * v.y + 1u; v.z = 3u * v.z + 1u; v.w = 3u * v.w + 1u;
            out4[q] = v;
        }
    }
    // the tail: the last block with words past the last whole uint4
    const long long tail = (long long)n4 * 4;
    if (tail >= tile && tail < tile + (long long)blockDim.x * 16 && threadIdx.x < (unsigned)(n % 4)) {
        long long i = (long long)(n | 1) - 1 - threadIdx.x;
        out[i] = 3u * in[i] + 1u;
    }
}
