// The last steps of the coalescing lesson towards the device's own copy. Every kernel here
// writes out[e] = in[e] for every e in 0..n-1, n a multiple of 4, as copy.cu's do.
//
// One kernel, two defines, so that each step changes one thing:
//   UNROLL  float4 loads each thread issues before its first store. A load waits hundreds
//           of cycles for memory; independent loads overlap that wait, so a thread keeps
//           UNROLL x 16 bytes in flight where copy_vec4 keeps 16.
//   STREAM  1: the loads and stores carry the evict-first hint (ld/st.global.cs, what
//           __ldcs and __stcs emit). Every byte is touched once, so none of it is worth
//           keeping in the caches.
// The grid is the lesson's choice, a multiple of the SM count (the lesson's define BPS,
// blocks per SM, sizes it; the kernel reads only gridDim); the loop walks the array in
// steps of the whole grid, UNROLL steps at a time, and copies the float4s that make no
// whole group one at a time.

#ifndef UNROLL
#define UNROLL 4
#endif
#ifndef STREAM
#define STREAM 0
#endif

__device__ __forceinline__ float4 load4(const float4* p)
{
#if STREAM
    return __ldcs(p);
#else
    return *p;
#endif
}

__device__ __forceinline__ void store4(float4* p, float4 v)
{
#if STREAM
    __stcs(p, v);
#else
    *p = v;
#endif
}

extern "C" __global__ void copy_vec4_unroll(const float4* __restrict__ in,
                                            float4* __restrict__ out, int n)
{
    const int n4 = n / 4;
    const int step = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Whole groups: all UNROLL loads are issued before the first store, and none depends
    // on another, so they are in flight together.
    for (; i + (UNROLL - 1) * step < n4; i += UNROLL * step) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = load4(in + i + u * step);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) store4(out + i + u * step, v[u]);
    }
    for (; i < n4; i += step) store4(out + i, load4(in + i));
}

// One float4 per thread and a grid as large as the array: no loop, no index carried from
// one iteration to the next, every block launched once. The lesson measures this against
// the resident grid-stride loops above.
extern "C" __global__ void copy_vec4_once(const float4* __restrict__ in,
                                          float4* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) out[i] = in[i];
}
