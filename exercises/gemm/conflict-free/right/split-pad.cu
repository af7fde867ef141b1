// Another right answer: B's columns split into two runs of 4 half a tile apart (a quarter
// warp reads 128 neighbouring bytes), the transposed A tile padded to a row pitch of BM + 4
// (k and k + 4 of one row 16 banks apart), the next tile's global loads issued before the
// sums, C stored in the same split columns. Its PTX loads part of one A vector twice; the
// SASS reads it once, and so does the lab's count.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define THREADS 256
#define AP (BM + 4)   // row pitch of the transposed A tile

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

    __shared__ __align__(16) float As[BK * AP];   // As[k * AP + row]
    __shared__ __align__(16) float Bs[BK * BN];   // Bs[k * BN + col]
    const int arow = t / 2, ak = (t % 2) * 4;
    float4 ra = *reinterpret_cast<const float4*>(A + (size_t)arow * K + ak);
    float4 rb = *reinterpret_cast<const float4*>(B + (size_t)(t / 32) * N + (t % 32) * 4);
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[(ak + 0) * AP + arow] = ra.x;
        As[(ak + 1) * AP + arow] = ra.y;
        As[(ak + 2) * AP + arow] = ra.z;
        As[(ak + 3) * AP + arow] = ra.w;
        *reinterpret_cast<float4*>(&Bs[t * 4]) = rb;
        __syncthreads();
        if (k0 + BK < K) {   // the next tile's loads, in flight during the sums
            ra = *reinterpret_cast<const float4*>(A + (size_t)arow * K + k0 + BK + ak);
            rb = *reinterpret_cast<const float4*>(B + (size_t)(k0 + BK + t / 32) * N + (t % 32) * 4);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k * AP + trow * TM]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k * AP + trow * TM + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k * BN + tcol * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k * BN + BN / 2 + tcol * 4]);
            const float am[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bn[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += am[i] * bn[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c = C + (size_t)(trow * TM + i) * N;
        *reinterpret_cast<float4*>(c + tcol * 4) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(c + BN / 2 + tcol * 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}
