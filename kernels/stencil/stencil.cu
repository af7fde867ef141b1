// A 1D stencil: out[i] is the sum of in[i - R] .. in[i + R], elements past either end of
// the array counting as zero. Every mode sums the same window in the same order, so all of
// them write the same floats when they read what they should.
//   MODE 0, global:  each thread reads its 2R + 1 inputs from global memory.
//   MODE 1, shared:  the block stages its inputs and R more on each side (the halo) in a
//                    shared tile, waits for every thread at __syncthreads(), sums the tile.
//   MODE 2, no-sync: the same tile with no barrier: a warp may read tile words that
//                    another warp has not written yet.
#ifndef MODE
#define MODE 0
#endif
#ifndef R
#define R 8        // radius: the window is 2R + 1 elements
#endif
#ifndef BLOCK
#define BLOCK 256  // threads per block, one output each
#endif

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil(const float* __restrict__ in,
                                   float* __restrict__ out, int n)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    float sum = 0.0f;
#if MODE == 0
#pragma unroll
    for (int j = -R; j <= R; ++j)
        sum += at(in, i + j, n);
#else
    __shared__ float tile[BLOCK + 2 * R];
    int t = threadIdx.x;
    tile[t + R] = at(in, i, n);
    if (t < R) {
        tile[t] = at(in, i - R, n);
        tile[t + BLOCK + R] = at(in, i + BLOCK, n);
    }
#if MODE == 1
    __syncthreads();
#endif
#pragma unroll
    for (int j = -R; j <= R; ++j)
        sum += tile[t + R + j];
#endif
    if (i < n)
        out[i] = sum;
}
