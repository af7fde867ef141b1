// wrong: [faked flag] two buffers used in turn but nothing prefetched: each tile is copied only when its turn comes, its words split into three groups (a quarter, a quarter, a half of each warp's inside words) and drained by wait_group 2, 1, 0 before the sums; two of every three waits leave a later group of the same tile in flight, so copy.waits_in_flight_pct reads 67% with no overlap of copies and sums (past-the-end words zeroed by a store)
// caught by: yours copy.reads_in_flight_pct at least 0.9x solution
// on: cpu
// A window sum over tiles: out[i] is the sum of in[i - R] .. in[i + R], inputs past either
// end counting as zero. Each block walks TILES tiles of BLOCK outputs in turn and copies
// each tile's BLOCK + 2R inputs into shared memory with cp.async, two tiles at a time: the
// copies of the next tile are in flight while the block sums this one.

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

// Each tile staged in three groups: a warp's inside words split by rank (a quarter, a
// quarter, a half: at sector boundaries in a full warp); words past either end zeroed by a
// plain store, as the copy would have zero-filled them.
__device__ __forceinline__ void one(float* dst, const float* in, int i, int n, int part)
{
    int lane = threadIdx.x & 31;
    bool inside = i >= 0 && i < n;
    unsigned in_mask = __ballot_sync(0xffffffffu, inside);
    int cnt = __popc(in_mask), rank = __popc(in_mask & ((1u << lane) - 1));
    int mine = rank < cnt / 4 ? 0 : rank < cnt / 2 ? 1 : 2;
    if (cnt < 4) mine = rank < 1 ? 0 : rank < 2 ? 1 : 2;
    if (inside && mine == part) copy_async(dst, in, i, n);
    if (!inside && part == 0) *dst = 0.0f;
}

__device__ __forceinline__ void stage_part(float* tile, const float* in, int first, int n, int part)
{
    int t = threadIdx.x;
    one(&tile[t], in, first - R + t, n, part);
    if (t < 2 * R) one(&tile[t + BLOCK], in, first - R + t + BLOCK, n, part);
}

extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    __shared__ float tiles[2][SPAN];
    for (int k = 0; k < TILES; ++k) {
        float* tile = tiles[k & 1];
        int first = base + k * BLOCK;
        stage_part(tile, in, first, n, 0); commit();
        stage_part(tile, in, first, n, 1); commit();
        stage_part(tile, in, first, n, 2); commit();
        // Drain this tile's own groups one by one: nothing of the next tile is in flight.
        wait_group<2>();
        wait_group<1>();
        wait_group<0>();
        __syncthreads();
        sum_out(tile, out, first, n);
        __syncthreads();
    }
}
