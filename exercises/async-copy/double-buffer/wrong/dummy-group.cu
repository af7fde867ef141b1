// wrong: [token use] copies one tile a turn and waits for it whole; beside it, every turn copies the same words again into a scratch array nobody reads, committed as a group of its own, so that each wait leaves a full group in flight and the scratch array makes the shared size of two tiles
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
#ifndef R
#define R 16
#endif
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef TILES
#define TILES 8
#endif

#define SPAN (BLOCK + 2 * R)

__device__ __forceinline__ void copy_async(float* dst, const float* in, int i, int n)
{
    bool inside = i >= 0 && i < n;
    const float* src = inside ? in + i : in;
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(s), "l"(src), "r"(inside ? 4 : 0) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}
__device__ __forceinline__ void sum_out(const float* tile, float* out, int first, int n)
{
    int t = threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j <= 2 * R; ++j)
        sum += tile[t + j];
    if (first + t < n) out[first + t] = sum;
}
extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    __shared__ float tile[SPAN];
    __shared__ float scratch[SPAN];   // never read: the dummy copies land here
    const int base = blockIdx.x * TILES * BLOCK;
    const int t = threadIdx.x;
    for (int k = 0; k < TILES; ++k) {
        const int first = base + k * BLOCK;
        copy_async(&tile[t], in, first - R + t, n);
        if (t < 2 * R) copy_async(&tile[t + BLOCK], in, first - R + t + BLOCK, n);
        commit();
        copy_async(&scratch[t], in, first + t, n);   // a group to leave in flight
        commit();
        wait_group<1>();
        __syncthreads();
        sum_out(tile, out, first, n);
        __syncthreads();
    }
    wait_group<0>();
}
