// wrong: [token use] stages the block's whole input with cp.async and waits for it once; then, every turn, each lane commits a 16-byte copy of source size 0 (it reads nothing and only zero-fills a scratch slot) and waits with it in flight beside the sums
// caught by: yours copy.reads_in_flight_pct at least 0.9x solution
// on: cpu
// A window sum over tiles: out[i] is the sum of in[i - R] .. in[i + R], inputs past either
// end counting as zero. Each block copies all its TILES tiles' inputs into shared memory at
// once, then sums them tile by tile.

#ifndef R
#define R 16
#endif
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef TILES
#define TILES 8
#endif

#define WHOLE (TILES * BLOCK + 2 * R)

__device__ __forceinline__ void copy_async(float* dst, const float* in, int i, int n)
{
    bool inside = i >= 0 && i < n;
    const float* src = inside ? in + i : in;
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
                 :: "r"(s), "l"(src), "r"(inside ? 4 : 0) : "memory");
}

// A copy that reads none of its 16 bytes: the slot is only zero-filled.
__device__ __forceinline__ void nothing_async(float4* dst, const float* in)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, 0;\n"
                 :: "r"(s), "l"(in) : "memory");
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void wait_group()
{
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

extern "C" __global__ void window_mine(const float* __restrict__ in, float* __restrict__ out,
                                       int n)
{
    int base = blockIdx.x * TILES * BLOCK;
    int t = threadIdx.x;
    __shared__ float whole[WHOLE];
    __shared__ float4 scratch[BLOCK];
    for (int i = t; i < WHOLE; i += BLOCK) copy_async(&whole[i], in, base - R + i, n);
    commit();
    wait_group<0>();
    __syncthreads();
    for (int k = 0; k < TILES; ++k) {
        nothing_async(&scratch[t], in);
        commit();
        wait_group<1>();
        const float* tile = whole + k * BLOCK;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j <= 2 * R; ++j)
            sum += tile[t + j];
        int first = base + k * BLOCK;
        if (first + t < n) out[first + t] = sum;
    }
    wait_group<0>();
}
