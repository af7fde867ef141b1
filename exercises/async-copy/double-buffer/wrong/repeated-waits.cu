// wrong: [token use] one tile at a time, waited for whole before its sum; to look overlapped, warp 0 leaves a token group of zero-filled words pending in the unused half and repeats wait_group 1 a hundred times beside it, waits that complete no copy
// caught by: yours copy.reads_in_flight_pct at least 0.9x solution
// on: cpu
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

extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    int t = threadIdx.x;
    __shared__ float buf[2 * SPAN];
    float* tile = buf; // only ever the first half
    for (int k = 0; k < TILES; ++k) {
        int first = base + k * BLOCK;
        copy_async(&tile[t], in, first - R + t, n);
        if (t < 2 * R) copy_async(&tile[t + BLOCK], in, first - R + t + BLOCK, n);
        commit();
        if (k == 0 && t < 32) {
            // A zero-filled word a lane into the half never used, a group of its own left
            // pending, and the same wait made a hundred times beside it.
            copy_async(&buf[SPAN + t], in, -1, n);
            commit();
#pragma unroll 1
            for (int w = 0; w < 100; ++w) wait_group<1>();
        }
        wait_group<0>();
        __syncthreads();
        sum_out(tile, out, first, n);
        __syncthreads();
    }
}
