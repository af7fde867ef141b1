// right: no barrier of the whole block: each pair of neighbouring warps meets at a named barrier of its own (`bar.sync id, 64`), which is all a warp's window needs; the edge warps stage the block's halo
// Warp w's windows reach R words into warps w - 1 and w + 1 (R < 32), so it must meet those
// two after they have stored, and no other. Barrier w joins warps w - 1 and w; 64 threads
// make its count, so it lets them through as a pair.

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ void pair_sync(int id)
{
    asm volatile("bar.sync %0, 64;" :: "r"(id) : "memory");
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x, w = t / 32, warps = BLOCK / 32;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = at(in, i, n);
    if (t < R) tile[t] = at(in, i - R, n);                          // warp 0: low halo
    if (t >= BLOCK - R) tile[t + 2 * R] = at(in, i + R, n);         // last warp: high halo
    // The lower pair first, so that every warp waits in the same order and none deadlocks.
    if (w > 0) pair_sync(w);             // barrier w: warps w - 1 and w
    if (w < warps - 1) pair_sync(w + 1); // barrier w + 1: warps w and w + 1
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
