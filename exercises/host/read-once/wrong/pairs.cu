// wrong: [off the point] each lane reads two neighbouring words in two rounds, so a warp's request spans 256 bytes with every other word skipped: 8 sectors of which half the bytes are used.
// caught by: yours global.pct_used >= 99
// on: cpu

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)(k / 2) * 2 * blockDim.x + 2 * threadIdx.x + k % 2;
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
