// wrong: [block race] both barriers made of barrier.cluster.arrive.relaxed and barrier.cluster.wait: the threads wait for each other, but a relaxed arrive releases none of their writes
// caught by: race
// on: cpu

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
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
        if (i < n) out[i] = sum;
        asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    }
}
