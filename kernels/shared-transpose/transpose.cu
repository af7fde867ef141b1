// Transpose of an n x n row-major matrix, n a multiple of 32. A block of 32 x 8 threads
// handles one 32 x 32 tile; each thread moves four elements, ROWS apart.

#define TILE 32
#define ROWS 8

#ifndef PAD
#define PAD 0
#endif

// Reads a tile row by row (a warp reads 32 neighbours) and writes it straight to its
// transposed place, where the same warp's 32 values land n floats apart.
extern "C" __global__ void transpose_naive(const float* __restrict__ in,
                                           float* __restrict__ out, int n)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        out[col * n + row + k] = in[(row + k) * n + col];
}

// Stages the tile in shared memory so that both the global read and the global write go
// along rows. The shared tile is then read down a column; PAD extra words per row decide
// whether that column falls in one bank (PAD 0) or in 32 different ones (PAD 1).
extern "C" __global__ void transpose_tiled(const float* __restrict__ in,
                                           float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + PAD];

    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        tile[threadIdx.y + k][threadIdx.x] = in[(row + k) * n + col];

    __syncthreads();

    // The output tile sits at the mirrored block position.
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += ROWS)
        out[(row + k) * n + col] = tile[threadIdx.x][threadIdx.y + k];
}
