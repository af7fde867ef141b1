// A window sum over tiles: out[i] is the sum of in[i - R] .. in[i + R], inputs past either
// end counting as zero. Each block walks TILES tiles of BLOCK outputs in turn, staging each
// tile's BLOCK + 2R inputs (its own and a halo of R on each side) in shared memory, and
// every staged input is read 2R + 1 times from there. Every mode sums the same window in
// the same order, so all of them write the same floats when they read what they should.
//   MODE 0, sync:   each thread loads its inputs into a register and stores them into the
//                   tile (global -> register -> shared), then __syncthreads().
//   MODE 1, async:  cp.async copies each input straight into the tile (global -> shared),
//                   cp.async.wait_group 0 waits for the thread's copies, __syncthreads()
//                   for everyone's: one tile in flight, then the sums.
//   MODE 2, double: two tiles: while the block sums tile k, the copies of tile k + 1 are in
//                   flight into the other one (commit one group per tile, wait_group 1
//                   leaves the newest in flight).
#ifndef MODE
#define MODE 0
#endif
#ifndef R
#define R 16       // radius: the window is 2R + 1 inputs
#endif
#ifndef BLOCK
#define BLOCK 256  // threads per block, one output each per tile
#endif
#ifndef TILES
#define TILES 8    // tiles each block walks
#endif

#define SPAN (BLOCK + 2 * R)

// One asynchronous 4-byte copy into shared memory. Past either end of the array it copies
// none of the source (src-size 0), so the word is zero-filled, and names the array's first
// word so that no address outside it is formed.
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

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

// The tile's inputs from global memory, first = the first output of the tile: each thread
// its own and, for t < 2R, one of the halo's.
__device__ __forceinline__ void stage(float* tile, const float* in, int first, int n)
{
    int t = threadIdx.x;
#if MODE == 0
    tile[t] = at(in, first - R + t, n);
    if (t < 2 * R) tile[t + BLOCK] = at(in, first - R + t + BLOCK, n);
#else
    copy_async(&tile[t], in, first - R + t, n);
    if (t < 2 * R) copy_async(&tile[t + BLOCK], in, first - R + t + BLOCK, n);
#endif
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

extern "C" __global__ void window_sum(const float* __restrict__ in, float* __restrict__ out,
                                      int n)
{
    int base = blockIdx.x * TILES * BLOCK;
#if MODE == 2
    __shared__ float tiles[2][SPAN];
    stage(tiles[0], in, base, n);
    commit();
    for (int k = 0; k < TILES; ++k) {
        // The next tile's copies go into the other buffer, which every warp finished
        // reading before the barrier that ended the last turn.
        if (k + 1 < TILES) stage(tiles[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        // One group a turn, empty at the last, so that wait_group 1 always leaves exactly
        // the next tile in flight and completes this one.
        commit();
        wait_group<1>();
        __syncthreads();
        sum_out(tiles[k & 1], out, base + k * BLOCK, n);
        __syncthreads();
    }
#else
    __shared__ float tile[SPAN];
    for (int k = 0; k < TILES; ++k) {
        stage(tile, in, base + k * BLOCK, n);
#if MODE == 1
        commit();
        wait_group<0>();
#endif
        __syncthreads();
        sum_out(tile, out, base + k * BLOCK, n);
        __syncthreads();
    }
#endif
}
