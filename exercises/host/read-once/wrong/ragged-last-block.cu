// wrong: [one size] coalesced everywhere but in a ragged last block holding 400 to 3999 words, which keeps the starter's run of 16 words a thread: at 1000003 that block holds 579 words, 0.4% of the sectors, and only a size whose last block is about half full shows it
// caught by: yours global.pct_used >= 99
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n)
{
    const long long tile = (long long)blockIdx.x * blockDim.x * 16;
    const long long left = n - tile;
    const bool old = left >= 400 && left < 4000;
    for (int k = 0; k < 16; ++k) {
        const long long i = old ? tile + (long long)threadIdx.x * 16 + k : tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
