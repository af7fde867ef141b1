// C = A x B for n x n row-major floats, one output per thread, blocks of TILE x TILE threads.
//   MODE 0  naive: each thread reads a row of A and a column of B from global memory.
//   MODE 1  tiled: the block stages TILE x TILE tiles of A and B in shared memory, so each global
//           element is read once per block instead of once per thread (TILE times fewer loads).
//   MODE 2  tiled, but the B tile is kept transposed and read down a column: a warp's lanes
//           read words TILE (+ PAD) apart in shared memory.
// Every variant adds the products in the same order, k = 0, 1, ..., n - 1, so the results
// agree (within the lesson's tolerance, for the compiler's freedom to fuse or not).

#ifndef MODE
#define MODE 0
#endif
#ifndef TILE
#define TILE 16
#endif
#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ void matmul(const float* __restrict__ A, const float* __restrict__ B,
                                  float* __restrict__ C, int n)
{
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
#if MODE == 0
    for (int k = 0; k < n; ++k) acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
#else
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + PAD];
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = A[(size_t)row * n + t0 + tx];
#if MODE == 1
        Bs[ty][tx] = B[(size_t)(t0 + ty) * n + col];
#else
        Bs[tx][ty] = B[(size_t)(t0 + ty) * n + col];
#endif
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
#if MODE == 1
            acc += As[ty][k] * Bs[k][tx];
#else
            acc += As[ty][k] * Bs[tx][k];
#endif
        }
        // The next tiles overwrite As and Bs: every thread must be done with these.
        __syncthreads();
    }
#endif
    C[(size_t)row * n + col] = acc;
}
