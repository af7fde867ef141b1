// right: both barriers written as cooperative groups' this_thread_block().sync(), the same block-wide barrier as __syncthreads()
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero. R and BLOCK
// come from the lesson (8 and 256). Each block of BLOCK threads handles TILES tiles of BLOCK
// outputs one after another, reusing one shared tile (with its halo) for all of them; n need
// not be a multiple of BLOCK.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        tile[t + R] = at(in, i, n);
        if (t < R) {
            tile[t] = at(in, i - R, n);
            tile[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        cg::this_thread_block().sync();
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
        if (i < n) out[i] = sum;
        cg::this_thread_block().sync();
    }
}
