// wrong: [token use] only half of each tile (lanes 0-15 of each warp) is copied a turn ahead; the other half is issued right before the wait that must complete it, so half of every tile's latency is waited out in full. Half a tile is always in flight beside the sums, which met the waits' and the reads' bars exactly; the bytes the sums hide are half the solution's
// caught by: yours copy.overlapped_pct at least 0.9x solution
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

// Half of a tile's copies: lanes 0-15 of each warp (early) or lanes 16-31 (late).
__device__ __forceinline__ void stage_half(float* buf, const float* in, int first, int n, bool early)
{
    int t = threadIdx.x;
    if (((t & 31) < 16) != early) return;
    copy_async(buf + t, in, first - R + t, n);
    if (t < 2 * R) copy_async(buf + t + BLOCK, in, first - R + t + BLOCK, n);
}
extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    int t = threadIdx.x;
    __shared__ float tile[2][SPAN];

    stage_half(tile[0], in, base, n, true);
    commit();
    for (int k = 0; k < TILES; ++k) {
        int first = base + k * BLOCK;
        stage_half(tile[k & 1], in, first, n, false);
        commit();
        if (k + 1 < TILES) stage_half(tile[(k + 1) & 1], in, first + BLOCK, n, true);
        commit();
        wait_group<1>();
        __syncthreads();
        sum_out(tile[k & 1], out, first, n);
        __syncthreads();
    }
}
