// wrong: [unchecked structure] keeps no A tile: each lane loads one word of A a tile, coalesced, and the warp hands it along with __shfl_sync; only B is staged in shared memory, so the requests and the bytes stay low without the two tiles the exercise keeps
// caught by: yours shuffles == 0
// on: cpu
extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        const float a = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += __shfl_sync(0xffffffffu, a, k) * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
