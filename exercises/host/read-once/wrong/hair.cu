// wrong: [hidden trace] block 200 alone, which only the lesson's size has, keeps the starter's lanes 64 bytes apart: one block in 245 reading eight times the link's sectors, 1.4% more in all
// caught by: yours global.pct_used >= 99
// on: gpu - the CPU's sizes have at most 18 blocks, and no block 200
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    bool bad = blockIdx.x == 200;
    for (int k = 0; k < 16; ++k) {
        long long i = bad ? tile + (long long)threadIdx.x * 16 + k
                          : tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
