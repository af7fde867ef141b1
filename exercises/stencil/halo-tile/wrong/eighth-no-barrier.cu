// wrong: [hidden trace] drops the barrier after staging the tile in one block of eight, and only in grids wider than 4096 blocks (the lesson's): the checked sizes are traced whole and race-free, and a trace of a few blocks at the lesson's size rarely holds one that races
// caught by: race
// on: cpu
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero, one thread
// per output. The block stages its BLOCK inputs and R more on each side (the halo) in a
// shared tile, waits until every thread has written its part, and sums its window there.

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = at(in, i, n);
    if (t < R) {
        tile[t] = at(in, i - R, n);                 // left halo
        tile[t + BLOCK + R] = at(in, i + BLOCK, n); // right halo
    }
    // A window holds words that other warps copied: wait for all of them.
    if (!(gridDim.x > 4096 && (blockIdx.x & 7) == 2)) __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
