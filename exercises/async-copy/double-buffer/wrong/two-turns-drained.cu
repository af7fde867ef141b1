// wrong: [unchecked structure] double-buffers six turns of eight, but on turns 1 and 3 waits for every copy and copies the next tile synchronously: the overlap is dropped a quarter of the time, 62.5% of the sums made with a copy in flight against the solution's 87.5%
// caught by: yours copy.reads_in_flight_pct at least 0.9x solution
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

__device__ __forceinline__ void sum_out(const float* tile, float* out, int first, int n)
{
    int t = threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j <= 2 * R; ++j)
        sum += tile[t + j];
    if (first + t < n) out[first + t] = sum;
}

// The tile's inputs, first = its first output: each thread copies its own and, for t < 2R,
// one of the halo's.
__device__ __forceinline__ void stage(float* tile, const float* in, int first, int n)
{
    int t = threadIdx.x;
    copy_async(&tile[t], in, first - R + t, n);
    if (t < 2 * R) copy_async(&tile[t + BLOCK], in, first - R + t + BLOCK, n);
}

extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    __shared__ float tiles[2][SPAN];
    stage(tiles[0], in, base, n);
    commit();
    for (int k = 0; k < TILES; ++k) {
        bool ahead = k + 1 < TILES && k != 1 && k != 3;
        if (ahead) stage(tiles[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        commit();
        if (ahead) wait_group<1>(); else wait_group<0>();
        __syncthreads();
        sum_out(tiles[k & 1], out, base + k * BLOCK, n);
        __syncthreads();
        if (!ahead && k + 1 < TILES) { stage(tiles[(k + 1) & 1], in, base + (k + 1) * BLOCK, n); commit(); }
    }
}
