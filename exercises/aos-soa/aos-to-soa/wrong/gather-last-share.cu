// wrong: [token use] coalesced reads for all but the last 1.2% of the particles, which a warp reads with lanes four particles apart (16 bytes: a quarter of each sector used), the same values: 97.7% of the sector bytes used and 1.023x the solution's sectors at n = 16384, inside the old 90% and 1.1x bars (a red team's, passing every CPU check)
// caught by: yours global.pct_used >= 98
// on: cpu
#define PER_THREAD 4
extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out, float dx, int n)
{
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
    unsigned T = ((unsigned)n / 80) & ~127u;
    unsigned cut = (unsigned)n - T;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i >= (unsigned)n) continue;
        if (i >= cut) {
            unsigned j = i - cut;
            i = cut + (j & ~127u) + (j & 31u) * 4 + ((j >> 5) & 3u);
        }
        out[i] = p[i] + dx;
    }
}
