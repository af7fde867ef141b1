// wrong: [hidden trace] past block 64, one block in 8 keeps the starter's lanes 64 bytes apart, eight times the link's sectors there
// caught by: yours global.pct_used >= 99
// on: gpu - the CPU traces the lesson's few blocks at the lesson's size, and the bad blocks are one in 8 or 16 of a grid wider than the CPU's other sizes; a GPU check traces 64 clusters drawn anywhere
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    bool bad = blockIdx.x >= 64 && (blockIdx.x & 7) == 5;
    for (int k = 0; k < 16; ++k) {
        long long i = bad ? tile + (long long)threadIdx.x * 16 + k
                          : tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
