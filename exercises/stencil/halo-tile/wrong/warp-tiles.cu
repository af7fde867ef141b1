// wrong: [warp race] gives each warp a tile of its own, its 32 inputs and R on each side, and sums it with no barrier at all since no other warp touches it: but lane l reads words lanes l - R .. l + R of the same warp wrote, and without __syncwarp() nothing orders their writes before its reads
// caught by: yours shared.races == 0
// on: cpu

#define WARPS (BLOCK / 32)

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tiles[WARPS][32 + 2 * R];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    float* tile = tiles[w];
    tile[lane + R] = at(in, i, n);
    if (lane < R) tile[lane] = at(in, i - R, n);
    else if (lane >= 32 - R) tile[lane + 2 * R] = at(in, i + R, n);
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[lane + R + j];
    if (i < n) out[i] = sum;
}
