// wrong: [hidden trace] B's reads fixed but A's tile unpadded, its transposing stores 2-way conflicted: the padding is 4 * PADK with PADK = add.sat.s32(0x7fffffff, 1) >> 31, 0 on a GPU (saturated) and 1 where the interpreter wrapped, ignoring .sat, which judged the rows padded
// caught by: yours shared.conflicts_per_request == 0
// on: cpu
__device__ __forceinline__ int padk()
{
    int v;
    asm("add.sat.s32 %0, %1, %2;" : "=r"(v) : "r"(0x7fffffff), "r"(1));
    return (int)((unsigned)v >> 31);
}
#define PADK padk()
// C = A B for row-major f32 matrices (A M x K, B K x N, C M x N), M, N and K multiples of
// 128. The `vectorised` rung: blocks of 256 threads (a 16 x 16 grid) each compute a 128 x 128
// tile of C, a thread an 8 x 8 patch in registers. Each step of k stages a 128 x 8 tile of A,
// transposed (k-major), and an 8 x 128 tile of B in shared memory, loaded with 16-byte words;
// a thread then reads its 8 A values and its 8 B values as two 16-byte shared loads each.

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256
#define LOADS (BM * BK / 4 / THREADS) // float4s of each tile per thread: 1
#define STAGES 1
#define APAD (4 * PADK)
#define AST (BM + APAD)

extern "C" __global__ void __launch_bounds__(THREADS) sgemm_cf(const float* __restrict__ A,
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

    __shared__ __align__(16) float As[STAGES][BK * (BM + 4)]; // As[s][k * BM + row]: A, transposed
    __shared__ __align__(16) float Bs[STAGES][BK * BN]; // Bs[s][k * BN + col]
    float4 ra[LOADS], rb[LOADS];
    // Load l of a thread: A row (t + l THREADS) / 2, k 4 ((t + l THREADS) % 2) .. +3;
    // B row (t + l THREADS) / 32, columns 4 ((t + l THREADS) % 32) .. +3.
#define FETCH(k0)                                                                          \
    _Pragma("unroll") for (int l = 0; l < LOADS; ++l)                                      \
    {                                                                                      \
        const int i = t + l * THREADS;                                                     \
        ra[l] = *reinterpret_cast<const float4*>(A + (size_t)(i / (BK / 4)) * K + (k0) +   \
                                                 (i % (BK / 4)) * 4);                      \
        rb[l] = *reinterpret_cast<const float4*>(B + (size_t)((k0) + i / (BN / 4)) * N +   \
                                                 (i % (BN / 4)) * 4);                      \
    }
    FETCH(0);
    const int s = 0; // the stage in use
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            const int i = t + l * THREADS;
            const int arow = i / (BK / 4), ak = (i % (BK / 4)) * 4;
            As[s][(ak + 0) * AST + arow] = ra[l].x;
            As[s][(ak + 1) * AST + arow] = ra[l].y;
            As[s][(ak + 2) * AST + arow] = ra[l].z;
            As[s][(ak + 3) * AST + arow] = ra[l].w;
            *reinterpret_cast<float4*>(&Bs[s][(i / (BN / 4)) * BN + (i % (BN / 4)) * 4]) = rb[l];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[s][k * AST + trow * TM]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[s][k * AST + trow * TM + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[s][k * BN + tcol * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[s][k * BN + tcol * 4 + BN / 2]);
            am[0] = a0.x; am[1] = a0.y; am[2] = a0.z; am[3] = a0.w;
            am[4] = a1.x; am[5] = a1.y; am[6] = a1.z; am[7] = a1.w;
            bn[0] = b0.x; bn[1] = b0.y; bn[2] = b0.z; bn[3] = b0.w;
            bn[4] = b1.x; bn[5] = b1.y; bn[6] = b1.z; bn[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
        if (k0 + BK < K) FETCH(k0 + BK);
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c = C + (size_t)(trow * TM + i) * N;
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(c + tcol * 4 + (j / 4) * (BN / 2)) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    }
}
