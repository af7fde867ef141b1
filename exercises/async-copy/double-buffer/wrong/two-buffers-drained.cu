// wrong: [unchecked structure] two buffers, but each turn waits for every copy (wait_group 0) before it sums: the next tile's copies are never in flight while the block works, so the second buffer buys nothing.
// caught by: yours copy.reads_in_flight_pct at least 0.9x solution
// on: cpu
// A window sum over tiles, staged two tiles at a time as the task asks, with the wait that
// drains the pipeline at every turn.

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
        // The next tile's copies go into the other buffer, which every warp finished
        // reading before the barrier that ended the last turn.
        if (k + 1 < TILES) stage(tiles[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        // One group a turn, empty at the last, so wait_group 1 completes this tile's.
        commit();
        wait_group<0>();
        // Every thread's copies of this tile are done: now anyone may read them.
        __syncthreads();
        sum_out(tiles[k & 1], out, base + k * BLOCK, n);
        __syncthreads();
    }
}
