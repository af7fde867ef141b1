// wrong: [hidden trace] in grids wider than 128 blocks, one block in 16 gives each thread a run of 4 neighbouring particles, so a warp's x reads lie 16 bytes apart
// caught by: yours global.pct_used >= 98
// on: gpu - the CPU traces the lesson's few blocks at the lesson's size, and the bad blocks are one in 8 or 16 of a grid wider than the CPU's other sizes; a GPU check traces 64 clusters drawn anywhere
#define PER_THREAD 4
extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    const bool runs = gridDim.x > 128 && (blockIdx.x & 15) == 6;
    unsigned tile = blockIdx.x * (blockDim.x * PER_THREAD);
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = runs ? tile + threadIdx.x * PER_THREAD + k : tile + threadIdx.x + k * blockDim.x;
        if (i < n) out[i] = xs[i] + dx;
    }
}
