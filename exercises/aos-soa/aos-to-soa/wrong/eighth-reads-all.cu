// wrong: [hidden trace] in one block of eight, and only in grids wider than 4096 blocks (the lesson's), also reads y, z and mass of every particle and folds them in times zero: four times the sectors there, where a few traced blocks rarely look
// caught by: yours global.sectors at most 1.1x solution
// on: gpu - the CPU check traces the lesson's few blocks at its size, a GPU's check 64 drawn anywhere
#define PER_THREAD 4
extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
    bool bad = gridDim.x > 4096 && (blockIdx.x & 7) == 3;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) {
            float v = p[i] + dx;
            if (bad) v += 0.0f * (p[n + i] + p[2 * n + i] + p[3 * n + i]);
            out[i] = v;
        }
    }
}
