// wrong: [slow-variant timing] swaps the mapping as the solution does (coalesced, conflict-free, each tile loaded once per block) but adds a barrier after every product of the inner loop "so no warp runs ahead": 33 barriers a tile where two suffice, and no warp can read its next pair of words before all 32 warps finish the current one
// caught by: yours faster than solution by >= 0.87x
// on: gpu - the requests, sectors and banks are the solution's, one for one: only the time shows the barriers the tiles do not need
// C = A x B for n x n row-major floats, one output per thread, blocks of 32 x 32 threads
// (TILE comes from the lesson: 32), each block one 32 x 32 square of C; n need not be a
// multiple of 32. Past the edges the tiles hold zeros.

// A warp is one row of the square: lane threadIdx.x takes column threadIdx.x. Its global
// loads and stores are 32 neighbouring floats; in the inner loop it reads one A word (a
// broadcast) and 32 neighbouring B words (32 banks).
// The barrier inside the inner loop guards nothing: no thread writes the tiles between the
// first barrier and the last, so the products only need the two barriers around them.

extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE]; // As[r][k]: row r of the square, k within the tile
    __shared__ float Bs[TILE][TILE]; // Bs[k][c]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
            __syncthreads(); // every warp at the same k before the next product
        }
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
