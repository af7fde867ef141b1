// wrong: [block race] warps meet two by two at named barriers (0 with 1, 2 with 3, ...), so warps 1 and 2 never meet, and a window that reaches into the next pair reads words nothing ordered
// caught by: race
// on: cpu
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
    if (t < R) tile[t] = at(in, i - R, n);
    if (t >= BLOCK - R) tile[t + 2 * R] = at(in, i + R, n);
    // each pair of warps waits for each other only
    const int pair = t / 64 + 1;
    asm volatile("bar.sync %0, 64;" :: "r"(pair) : "memory");
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
