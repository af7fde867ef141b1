// wrong: [token use] reads the first half of each tile coalesced and leaves the second half as it was, each lane a run of 8 words of its own: half the link's sectors still mostly wasted
// caught by: yours global.pct_used >= 99
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    // Rounds 0..7: the first 8 * blockDim.x words, neighbouring lanes on neighbouring words.
    for (int k = 0; k < 8; ++k) {
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
    // Rounds 8..15: the rest of the tile, a run of 8 words a thread.
    for (int k = 0; k < 8; ++k) {
        long long i = tile + 8LL * blockDim.x + (long long)threadIdx.x * 8 + k;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
