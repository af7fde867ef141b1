// C = A B for row-major f32 matrices (A M x K, B K x N, C M x N), M, N and K multiples of
// 128. The `tile-2d` rung: blocks of 256 threads (a 16 x 16 grid) each compute a 128 x 128
// tile of C, a thread an 8 x 8 patch in registers. Each step of k stages a 128 x 8 tile of A
// and an 8 x 128 tile of B in shared memory, one float per load, and a thread reads its 8 A
// values and 8 B values one float at a time.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS) sgemm_vec(const float* __restrict__ A,
                                                               const float* __restrict__ B,
                                                               float* __restrict__ C, int M,
                                                               int N, int K)
{
    const int t = threadIdx.x;
    const int tcol = t % (BN / TN), trow = t / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[TM][TN] = {{0.0f}};
    float am[TM], bn[TN];

    __shared__ float As[BM * BK]; // As[row * BK + k], as in A
    __shared__ float Bs[BK * BN]; // Bs[k * BN + col]
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Each tile is BM x BK = BK x BN floats: 4 of each per thread.
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            const int i = t + l * THREADS;
            As[i] = A[(size_t)(i / BK) * K + k0 + i % BK];
            Bs[i] = B[(size_t)(k0 + i / BN) * N + i % BN];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) am[i] = As[(trow * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j) bn[j] = Bs[k * BN + tcol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) C[(size_t)(trow * TM + i) * N + tcol * TN + j] = acc[i][j];
}
