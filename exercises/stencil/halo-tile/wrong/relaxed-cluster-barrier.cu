// wrong: [block race] barrier.cluster.arrive.relaxed and barrier.cluster.wait in place of __syncthreads(): every thread waits for the others, but a relaxed arrive releases none of its writes, so the tile's words are not ordered before the reads of other warps and lanes
// caught by: race
// on: cpu
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}
extern "C" __global__ void stencil_tile(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    tile[t + R] = at(in, i, n);
    if (t < R) {
        tile[t] = at(in, i - R, n);
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
