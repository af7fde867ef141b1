// right: one barrier a turn: each turn waits for every copy (the tile it sums is then the only one issued), passes the barrier (every warp's copies of it landed, every warp done with the tile before it), and only then issues the next tile's copies into the other buffer, which stay in flight while the block sums this one: where the wait sits differs from the solution's wait_group 1, the overlap does not.
// A window sum over tiles: out[i] is the sum of in[i - R] .. in[i + R], inputs past either
// end counting as zero. Each block walks TILES tiles of BLOCK outputs in turn and stages
// each tile's BLOCK + 2R inputs in shared memory, copied with cp.async into two buffers.

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

__device__ __forceinline__ void stage(float* tile, const float* in, int first, int n)
{
    int t = threadIdx.x;
    copy_async(&tile[t], in, first - R + t, n);
    if (t < 2 * R) copy_async(&tile[t + BLOCK], in, first - R + t + BLOCK, n);
}
// Tile k is waited for whole; the barrier after the wait both makes every warp's copies of
// it visible and orders every warp's sums of tile k - 1 before tile k + 1 is copied into
// that tile's buffer, so one barrier a turn is enough.
extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    __shared__ float tiles[2][SPAN];
    stage(tiles[0], in, base, n);
    commit();
    for (int k = 0; k < TILES; ++k) {
        wait_group<0>();
        __syncthreads();
        if (k + 1 < TILES) stage(tiles[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        commit();
        sum_out(tiles[k & 1], out, base + k * BLOCK, n);
    }
}
