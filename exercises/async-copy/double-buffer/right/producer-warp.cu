// right: a producer warp: warp 0 copies every tile and waits for it, the other warps only sum. Warp 0 reads no shared memory, so the bytes it keeps in flight are hidden by its block's sums, and the warps that copy nothing are judged by what warp 0 has in flight.
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

// One asynchronous 4-byte copy into shared memory: past either end of the array it reads
// none of its source (the word is zero-filled) and names the array's first word, so that
// no address outside the array is formed.
__device__ __forceinline__ void copy_async(float* dst, const float* in, int i, int n)
{
    bool inside = i >= 0 && i < n;
    const float* src = inside ? in + i : in;
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(s), "l"(src), "r"(inside ? 4 : 0) : "memory");
}

// Close the copies this thread issued since its last commit into one group.
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most N of this thread's groups are still in flight.
template <int N>
__device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
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

__device__ __forceinline__ void copy16(float* dst, const float* in, int i, int n)
{
    int left = n - i;
    int bytes = (i < 0 || left <= 0) ? 0 : (left >= 4 ? 16 : 4 * left);
    const float* src = bytes ? in + i : in;
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(s), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void stage_w0(float* buf, const float* in, int first, int n)
{
    int t = threadIdx.x;
    if (t >= 32) return;
    for (int j = t; j < SPAN; j += 32) copy_async(buf + j, in, first - R + j, n);
}
__device__ __forceinline__ void stage16(float* buf, const float* in, int first, int n)
{
    int t = threadIdx.x;
    if (t < SPAN / 4) copy16(buf + 4 * t, in, first - R + 4 * t, n);
}
extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    int t = threadIdx.x;
    __shared__ __align__(16) float tile[2][SPAN];

    stage_w0(tile[0], in, base, n);
    commit();
    for (int k = 0; k < TILES; ++k) {
        if (k + 1 < TILES) stage_w0(tile[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        commit();
        wait_group<1>();
        __syncthreads();
        sum_out(tile[k & 1], out, base + k * BLOCK, n);
        __syncthreads();
    }
}
