// wrong: [one size] takes N for the length of A's rows and K for C's: the same number at every square size, and the wrong rows of A (and past its end) wherever m, n and k differ
// caught by: correct
// on: cpu
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

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

extern "C" __global__ void __launch_bounds__(THREADS) sgemm_vec(const float* __restrict__ A,
                                                               const float* __restrict__ B,
                                                               float* __restrict__ C, int M,
                                                               int N, int K)
{
    const int t = threadIdx.x;
    const int tcol = t % (BN / TN), trow = t / (BN / TN);
    A += (size_t)blockIdx.y * BM * N;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * K + blockIdx.x * BN;
    float acc[TM][TN] = {{0.0f}};

    __shared__ __align__(16) float AsT[BK * BM]; // AsT[k * BM + row]: A's tile transposed
    __shared__ __align__(16) float Bs[BK * BN];  // Bs[k * BN + col]
    // one float4 of each tile per thread
    const int arow = t >> 1, ak = (t & 1) << 2;
    const int bk = t >> 5, bcol = (t & 31) << 2;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 av = ld4(A + (size_t)arow * N + k0 + ak);
        AsT[(ak + 0) * BM + arow] = av.x;
        AsT[(ak + 1) * BM + arow] = av.y;
        AsT[(ak + 2) * BM + arow] = av.z;
        AsT[(ak + 3) * BM + arow] = av.w;
        st4(&Bs[bk * BN + bcol], ld4(B + (size_t)(k0 + bk) * N + bcol));
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = ld4(&AsT[k * BM + trow * TM]), a1 = ld4(&AsT[k * BM + trow * TM + 4]);
            const float4 b0 = ld4(&Bs[k * BN + tcol * TN]), b1 = ld4(&Bs[k * BN + tcol * TN + 4]);
            const float am[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bn[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(am[i], bn[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* row = C + (size_t)(trow * TM + i) * K + tcol * TN;
        st4(row, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        st4(row + 4, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
}
