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
//   MODE 3, tma:    two tiles as in MODE 2, each moved by one thread's bulk copy (the
//                   Hopper TMA, sm_90) that completes on the tile's mbarrier: the thread
//                   announces the bytes (arrive.expect_tx), everyone waits on the
//                   barrier's phase. A bulk copy moves a multiple of 16 bytes between
//                   16-byte aligned addresses: n must be a multiple of 4, and the words of a
//                   tile past either end of the array are zeroed by the threads instead.
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

#if MODE == 3
__device__ __forceinline__ unsigned smem(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

// A barrier awaiting one arrival a phase; made visible to the TMA before any copy uses it.
__device__ __forceinline__ void mbar_init(unsigned long long* bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(smem(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// Thread 0: the tile's inputs inside the array, [a, b), in one bulk copy completing on
// `bar`; with none inside, a plain arrival completes the phase.
__device__ __forceinline__ void bulk(float* dst, const float* src, unsigned bytes,
                                     unsigned long long* bar)
{
    if (bytes == 0) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(smem(bar)) : "memory");
        return;
    }
    // Shared words read through ordinary loads before are rewritten by the TMA's proxy.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                 :: "r"(smem(bar)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];\n"
                 :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}

// Whether the barrier's phase of this parity has completed.
__device__ __forceinline__ bool done(unsigned long long* bar, unsigned parity)
{
    unsigned ok;
    asm volatile("{\n\t.reg .pred %%wp;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 %%wp, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, %%wp;\n\t}\n"
                 : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
    return ok != 0;
}

// The tile of outputs from `first`: thread 0 copies the inputs inside the array, every
// thread zeroes its words of the tile outside it.
__device__ __forceinline__ void stage_bulk(float* tile, unsigned long long* bar,
                                           const float* in, int first, int n)
{
    int lo = first - R;
    int a = max(lo, 0), b = min(lo + SPAN, n);
    for (int w = threadIdx.x; w < SPAN; w += BLOCK)
        if (lo + w < a || lo + w >= b) tile[w] = 0.0f;
    if (threadIdx.x == 0) bulk(tile + (a - lo), in + a, b > a ? (b - a) * 4 : 0, bar);
}
#endif

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
#if MODE == 3
    __shared__ alignas(16) float tiles[2][SPAN];
    __shared__ alignas(8) unsigned long long bars[2];
    if (threadIdx.x == 0) {
        mbar_init(&bars[0]);
        mbar_init(&bars[1]);
    }
    __syncthreads();
    stage_bulk(tiles[0], &bars[0], in, base, n);
    for (int k = 0; k < TILES; ++k) {
        // The next tile's copy goes into the other buffer, read by no warp since the
        // barrier that ended the last turn.
        if (k + 1 < TILES)
            stage_bulk(tiles[(k + 1) & 1], &bars[(k + 1) & 1], in, base + (k + 1) * BLOCK, n);
        // Buffer k & 1's barrier completes a phase per tile it holds: the (k / 2)-th.
        while (!done(&bars[k & 1], (k >> 1) & 1)) {
        }
        __syncthreads();
        sum_out(tiles[k & 1], out, base + k * BLOCK, n);
        __syncthreads();
    }
#elif MODE == 2
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
