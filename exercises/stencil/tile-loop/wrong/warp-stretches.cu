// wrong: [warp race] splits the tile so that each warp stages and sums a stretch of its own (its 32 inputs and R on each side), then drops both barriers since no other warp touches it: but a lane reads words that other lanes of its warp wrote, and overwrites them next turn, with no __syncwarp() between
// caught by: race
// on: cpu
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero. R and BLOCK
// come from the lesson (8 and 256). Each block of BLOCK threads handles TILES tiles of BLOCK
// outputs one after another, reusing one shared tile (with its halo) for all of them; n need
// not be a multiple of BLOCK.

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

#define WARPS (BLOCK / 32)

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tiles[WARPS][32 + 2 * R];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    float* tile = tiles[w];
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + threadIdx.x;
        tile[lane + R] = at(in, i, n);
        if (lane < R) tile[lane] = at(in, i - R, n);
        else if (lane >= 32 - R) tile[lane + 2 * R] = at(in, i + R, n);
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[lane + R + j];
        if (i < n) out[i] = sum;
    }
}
