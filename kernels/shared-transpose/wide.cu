// Transpose of an n x n row-major matrix by the padded tile of
// transpose.cu made wider: a block of 32 x 8 threads moves a TILE_W x TILE_W tile, so each
// thread moves (TILE_W / 32) x (TILE_W / 8) elements (16 for TILE_W 64, where
// transpose_tiled's threads move 4). All of a thread's loads are issued before the
// barrier and none depends on another: more bytes in flight per thread, and a quarter of
// the blocks, each with one barrier, for the same matrix.
//   STREAM  1: the global loads and stores carry the evict-first hint (__ldcs, __stcs):
//           each element is read once and written once, so neither is worth caching.

#ifndef TILE_W
#define TILE_W 64
#endif
#ifndef STREAM
#define STREAM 0
#endif
// Rows of threads in a block (the block is 32 x ROWS): each thread moves TILE_W / ROWS
// rows of its column pair; more rows, fewer elements a thread and more warps a block.
#ifndef ROWS
#define ROWS 8
#endif

__device__ __forceinline__ float load1(const float* p)
{
#if STREAM
    return __ldcs(p);
#else
    return *p;
#endif
}

__device__ __forceinline__ void store1(float* p, float v)
{
#if STREAM
    __stcs(p, v);
#else
    *p = v;
#endif
}

extern "C" __global__ void transpose_wide(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    // One spare word per row, as in `padded`: 65 words a row put the words of a column
    // in 32 different banks (word 65 r + c is in bank (r + c) % 32).
    __shared__ float tile[TILE_W][TILE_W + 1];

    const int x0 = blockIdx.x * TILE_W;
    const int y0 = blockIdx.y * TILE_W;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

#pragma unroll
    for (int r = 0; r < TILE_W; r += ROWS)
#pragma unroll
        for (int c = 0; c < TILE_W; c += 32)
            // The bound holds everywhere when n is a multiple of TILE_W (the lesson's
            // sizes); it keeps a grid rounded up (ceil_div) inside the matrix.
            if (y0 + ty + r < n && x0 + tx + c < n)
                tile[ty + r][tx + c] = load1(in + (y0 + ty + r) * n + x0 + tx + c);

    // Each thread reads a column that all of the block's warps stored.
    __syncthreads();

    // The output tile sits at the mirrored block position, written along its rows.
#pragma unroll
    for (int r = 0; r < TILE_W; r += ROWS)
#pragma unroll
        for (int c = 0; c < TILE_W; c += 32)
            if (x0 + ty + r < n && y0 + tx + c < n)
                store1(out + (x0 + ty + r) * n + y0 + tx + c, tile[tx + c][ty + r]);
}
