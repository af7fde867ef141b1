// wrong: [block race] a relaxed cluster barrier (barrier.cluster.arrive.relaxed, which releases none of the tile's stores) with the tile stored through the shared::cluster window at the block's own addresses (st.shared::cluster), in a launch without clusters
// caught by: race
// on: cpu
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}
__device__ __forceinline__ void put(float* p, float v)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("st.shared::cluster.f32 [%0], %1;" :: "r"(a), "f"(v) : "memory");
}
extern "C" __global__ void stencil_tile(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    put(&tile[t + R], at(in, i, n));
    if (t < R) {
        put(&tile[t], at(in, i - R, n));
        put(&tile[t + BLOCK + R], at(in, i + BLOCK, n));
    }
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    // sum it again and average, "to be safe"
    volatile float* vt = tile;
    float again = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) again += vt[t + R + j];
    if (i < n) out[i] = (sum + again) * 0.5f;
}
