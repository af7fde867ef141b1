// wrong: [hidden trace] makes block 0, the first a sampled trace looks at, read coalesced; every other block keeps a run of 16 words a thread
// caught by: yours global.pct_used >= 99
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = blockIdx.x == 0 ? tile + (long long)k * blockDim.x + threadIdx.x
                                      : tile + (long long)threadIdx.x * 16 + k;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
