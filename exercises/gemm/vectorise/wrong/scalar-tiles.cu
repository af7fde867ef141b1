// wrong: [off the point] moves 16 bytes per global load and per store of C, but stores the tiles a float at a time into unaligned arrays and reads them a float at a time too
// caught by: yours shared.load_words_per_request at least 0.9x solution
// on: cpu
// C = A B for row-major f32 matrices (A M x K, B K x N, C M x N), M, N and K multiples of
// 128. Blocks of 256 threads (a 16 x 16 grid) each compute a 128 x 128 tile of C, a thread
// an 8 x 8 patch in registers. Each step of k stages a 128 x 8 tile of A and an 8 x 128
// tile of B in shared memory, loaded from global memory 16 bytes at a time.

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
        // Each tile is BM x BK = BK x BN floats: one float4 of each per thread.
        const float4 a =
            *reinterpret_cast<const float4*>(A + (size_t)(t / 2) * K + k0 + (t % 2) * 4);
        const float4 b =
            *reinterpret_cast<const float4*>(B + (size_t)(k0 + t / 32) * N + (t % 32) * 4);
        As[4 * t + 0] = a.x; As[4 * t + 1] = a.y; As[4 * t + 2] = a.z; As[4 * t + 3] = a.w;
        Bs[4 * t + 0] = b.x; Bs[4 * t + 1] = b.y; Bs[4 * t + 2] = b.z; Bs[4 * t + 3] = b.w;
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
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(C + (size_t)(trow * TM + i) * N + tcol * TN + j) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}
