// A double buffer whose tiles are staged by 16-byte cp.async.cg copies, so only the first 72 lanes copy (the source size trimmed at the array's end); wait_group 1 keeps the next tile in flight while all 8 warps sum this one.
// A window sum over tiles: out[i] is the sum of in[i - R] .. in[i + R], inputs past either
// end counting as zero. Each block walks TILES tiles of BLOCK outputs in turn and stages
// each tile's BLOCK + 2R inputs in shared memory. This one stages them through registers;
// make it copy them with cp.async, two tiles at a time (the task says how).

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
// 16-byte copy of in[i .. i+3] (i a multiple of 4, possibly past either end): bytes past n zero-filled.
__device__ __forceinline__ void copy16(float* dst, const float* in, int i, int n)
{
    int valid = (i >= 0 && i < n) ? min(4, n - i) : 0;
    const float* src = valid ? in + i : in;
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
                 :: "r"(s), "l"(src), "r"(valid * 4) : "memory");
}

__device__ __forceinline__ void stage(float* buf, const float* in, int first, int n)
{
    int t = threadIdx.x;
    if (t < SPAN / 4) copy16(buf + 4 * t, in, first - R + 4 * t, n);
    commit();
}

extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    __shared__ __align__(16) float buf[2][SPAN];
    stage(buf[0], in, base, n);
    for (int k = 0; k < TILES; ++k) {
        int first = base + k * BLOCK;
        if (k + 1 < TILES) { stage(buf[(k + 1) & 1], in, first + BLOCK, n); wait_group<1>(); }
        else wait_group<0>();
        __syncthreads();
        sum_out(buf[k & 1], out, first, n);
        __syncthreads();
    }
}
