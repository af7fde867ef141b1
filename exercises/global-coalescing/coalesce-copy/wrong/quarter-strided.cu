// wrong: [hidden trace] copies coalesced in three blocks of four and with lanes 8 floats apart in every fourth, only at the lesson's size (n above 2^24): a few blocks traced at fixed places would see the taught copy most of the time, a wide sample drawn anywhere sees both
// caught by: yours global.sectors at most 1.02x solution
// on: gpu - the CPU check traces the lesson's few blocks at its size (4), a GPU's check 64 or as many as 2^18 records hold
extern "C" __global__ void copy_mine(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    long long threads = (long long)gridDim.x * blockDim.x;
    // Every fourth block maps its lanes 8 floats apart within its 256-float step: each
    // warp's request spans 8 times the sectors.
    bool strided = n > (1 << 24) && (blockIdx.x & 3) == 3;
    int t = threadIdx.x;
    int j = strided ? (t * 8) % 256 + t / 32 : t;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += threads) {
        long long i = base + j;
        if (i < n) out[i] = in[i];
    }
}
