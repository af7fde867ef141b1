// Shared-memory read patterns. Each block copies WORDS words of `in` into shared memory,
// then every lane reads all of them once, in an order set by STRIDE and VEC, and writes
// its sum. A lane visits each word exactly once whatever the order, and integer sums wrap
// exactly, so every variant writes the same numbers; only the banks each request hits
// differ.

#ifndef STRIDE
#define STRIDE 1  // distance in elements between neighbouring lanes
#endif
#ifndef VEC
#define VEC 1     // words per lane per access: 1 (4 bytes), 2 (8 bytes) or 4 (16 bytes)
#endif

#define WORDS 1024
#define ELEMS (WORDS / VEC)

#if VEC == 1
typedef unsigned elem_t;
__device__ __forceinline__ unsigned total(unsigned v) { return v; }
#elif VEC == 2
typedef uint2 elem_t;
__device__ __forceinline__ unsigned total(uint2 v) { return v.x + v.y; }
#elif VEC == 4
typedef uint4 elem_t;
__device__ __forceinline__ unsigned total(uint4 v) { return v.x + v.y + v.z + v.w; }
#endif

extern "C" __global__ void read_pattern(const unsigned* __restrict__ in,
                                        unsigned* __restrict__ out)
{
    __shared__ elem_t s[ELEMS];

    // Filled with the same width as it is read, row by row: these stores never conflict.
    const elem_t* src = reinterpret_cast<const elem_t*>(in) + (size_t)blockIdx.x * ELEMS;
    for (int e = threadIdx.x; e < ELEMS; e += blockDim.x) s[e] = src[e];
    __syncthreads();

    // Element (lane * STRIDE + k) mod ELEMS: as k runs over 0..ELEMS-1, each lane meets
    // every element once, starting STRIDE elements after its left neighbour.
    unsigned base = (threadIdx.x & 31) * STRIDE;
    unsigned sum = 0;
#pragma unroll 8
    for (unsigned k = 0; k < ELEMS; ++k) sum += total(s[(base + k) & (ELEMS - 1)]);

    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
