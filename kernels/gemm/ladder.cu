// The SGEMM ladder: C = A B for row-major f32 matrices (A M x K, B K x N, C M x N), one rung
// per RUNG. Sizes are multiples of every tile here (the lesson's 4096), so no bounds tests.
//   1 naive       one output per thread; consecutive threads take consecutive rows.
//   2 coalesced   consecutive threads take consecutive columns.
//   3 smem        32 x 32 tiles of A and B in shared memory.
//   4 tile-1d     each thread computes TM = 8 outputs of one column (64 x 64 block tile).
//   5 tile-2d     each thread computes an 8 x 8 patch (128 x 128 block tile).
//   6 vectorised  as 5, with 16-byte global loads, A's tile stored transposed, so a thread
//                 reads its 8 A values and 8 B values as two 16-byte shared loads each.
//   7 conflict-free as 6, without the bank conflicts it still has, and with the next tiles'
//                 global loads issued before the current ones are multiplied:
//                 SPLIT 1, PADA 4, EARLY 1 (the defines below; the lesson sets them).
//     warp-tiled  as conflict-free, each warp taking a 4 x 8 patch of the thread grid
//                 (WARP4 1), so its 16-byte reads of B name 8 distinct words, not 16.
// The defines were chosen by measuring on an H100: a second shared buffer (STAGES 2, kept
// as RUNG 8 for comparison) and a swizzled block order (SWZ) did not pay there.

#ifndef RUNG
#define RUNG 1
#endif

#if RUNG <= 3
extern "C" __global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                 float* __restrict__ C, int M, int N, int K)
{
#if RUNG == 1
    const int row = blockIdx.x * 32 + threadIdx.x % 32;
    const int col = blockIdx.y * 32 + threadIdx.x / 32;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
#elif RUNG == 2
    const int row = blockIdx.y * 32 + threadIdx.x / 32;
    const int col = blockIdx.x * 32 + threadIdx.x % 32;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
#else
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tr = threadIdx.x / 32, tc = threadIdx.x % 32;
    const int row = blockIdx.y * 32 + tr;
    const int col = blockIdx.x * 32 + tc;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[tr][tc] = A[(size_t)row * K + k0 + tc];
        Bs[tr][tc] = B[(size_t)(k0 + tr) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 32; ++k) acc += As[tr][k] * Bs[k][tc];
        __syncthreads();
    }
    C[(size_t)row * N + col] = acc;
#endif
}

#elif RUNG == 4
#define BM 64
#define BN 64
#define BK 8
#define TM 8
// 512 threads: thread t owns column t % BN of the block tile, rows TM * (t / BN) + 0..7.
extern "C" __global__ void __launch_bounds__(512) sgemm(const float* __restrict__ A,
                                                        const float* __restrict__ B,
                                                        float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int tcol = t % BN, trow = t / BN;
    const int arow = t / BK, acol = t % BK; // one A element each
    const int brow = t / BN, bcol = t % BN; // one B element each
    A += (size_t)blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[arow * BK + acol] = A[(size_t)arow * K + k0 + acol];
        Bs[brow * BN + bcol] = B[(size_t)(k0 + brow) * N + bcol];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + tcol];
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i] += As[(trow * TM + i) * BK + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) C[(size_t)(trow * TM + i) * N + tcol] = acc[i];
}

#else
#define BM 128
#define BN 128
#ifndef BK
#define BK 8
#endif
#define TM 8
#define TN 8
#define THREADS 256 // (BM / TM) * (BN / TN)
#ifndef MINB
#define MINB 1
#endif
#ifndef SPLIT
#define SPLIT 0
#endif
#ifndef PADA
#define PADA 0
#endif
#ifndef SWZ
#define SWZ 0
#endif
#ifndef EARLY
#define EARLY 0
#endif
#ifndef WARP4
#define WARP4 0
#endif
#define AS_ROW (BM + PADA) // a row of the transposed A tile, padded so the two halves of a
                           // warp's transposing stores fall in different banks
// With SPLIT a thread's 8 columns are two runs of 4, BN / 2 apart: the 8 lanes of a quarter
// warp then read 8 neighbouring 16-byte words of a B row, not 8 words 32 bytes apart.
#if SPLIT
#define BCOL(j) (((j) / 4) * (BN / 2) + tcol * 4 + (j) % 4)
#else
#define BCOL(j) (tcol * TN + (j))
#endif

// 256 threads, a 16 x 16 grid of 8 x 8 patches.
extern "C" __global__ void __launch_bounds__(THREADS, MINB) sgemm(const float* __restrict__ A,
                                                            const float* __restrict__ B,
                                                            float* __restrict__ C, int M, int N,
                                                            int K)
{
    const int t = threadIdx.x;
#if WARP4
    // A warp takes a 4 x 8 patch of the 16 x 16 thread grid, not 2 x 16: its 16-byte B reads
    // name 8 distinct words (128 bytes) instead of 16.
    const int w = t / 32, lane = t % 32;
    const int trow = (w / 2) * 4 + lane / 8, tcol = (w % 2) * 8 + lane % 8;
#else
    const int tcol = t % (BN / TN), trow = t / (BN / TN);
#endif
#if SWZ
    // Blocks launched together take a SWZ-tall band of C's block rows, column by column, so
    // the A rows and B columns they share are still in the L2.
    const int lin = blockIdx.y * gridDim.x + blockIdx.x;
    const int band = lin / (SWZ * gridDim.x), in_band = lin % (SWZ * gridDim.x);
    const int by = band * SWZ + in_band % SWZ, bx = in_band / SWZ;
#else
    const int by = blockIdx.y, bx = blockIdx.x;
#endif
    A += (size_t)by * BM * K;
    B += bx * BN;
    C += (size_t)by * BM * N + bx * BN;
    float acc[TM][TN] = {{0.0f}};
    float am[TM], bn[TN];

#if RUNG == 5
    __shared__ float As[BM * BK]; // row-major, as in A
    __shared__ float Bs[BK * BN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Each tile is BM x BK = BK x BN floats: BK / 2 of them per thread.
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
#else
    // A's tile stored transposed (k-major), so a thread's 8 rows at one k are contiguous.
#if RUNG <= 7
#define STAGES 1
#else
#define STAGES 2
#endif
#define LOADS (BM * BK / 4 / THREADS) // float4s of each tile per thread
    __shared__ __align__(16) float As[STAGES][BK * AS_ROW];
    __shared__ __align__(16) float Bs[STAGES][BK * BN];
    float4 ra[LOADS], rb[LOADS];
    // Load l of a thread: A row (t + l THREADS) / (BK / 4), k 4 ((t + l THREADS) % (BK / 4));
    // B row (t + l THREADS) / (BN / 4), columns 4 ((t + l THREADS) % (BN / 4)) onwards.
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
    int s = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = 0; l < LOADS; ++l) {
            const int i = t + l * THREADS;
            const int arow = i / (BK / 4), ak = (i % (BK / 4)) * 4;
            As[s][(ak + 0) * AS_ROW + arow] = ra[l].x;
            As[s][(ak + 1) * AS_ROW + arow] = ra[l].y;
            As[s][(ak + 2) * AS_ROW + arow] = ra[l].z;
            As[s][(ak + 3) * AS_ROW + arow] = ra[l].w;
            *reinterpret_cast<float4*>(&Bs[s][(i / (BN / 4)) * BN + (i % (BN / 4)) * 4]) = rb[l];
        }
        __syncthreads();
#if RUNG == 8 || EARLY
        // Fetch the next tiles now; the loads fly while this tile is multiplied.
        if (k0 + BK < K) FETCH(k0 + BK);
#endif
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[s][k * AS_ROW + trow * TM]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[s][k * AS_ROW + trow * TM + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[s][k * BN + BCOL(0)]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[s][k * BN + BCOL(4)]);
            am[0] = a0.x; am[1] = a0.y; am[2] = a0.z; am[3] = a0.w;
            am[4] = a1.x; am[5] = a1.y; am[6] = a1.z; am[7] = a1.w;
            bn[0] = b0.x; bn[1] = b0.y; bn[2] = b0.z; bn[3] = b0.w;
            bn[4] = b1.x; bn[5] = b1.y; bn[6] = b1.z; bn[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += am[i] * bn[j];
        }
#if RUNG <= 7
        __syncthreads();
#if !EARLY
        if (k0 + BK < K) FETCH(k0 + BK);
#endif
#else
        // The other buffer is written next: the barrier at its top orders it after every
        // thread's reads of it two tiles ago.
        s ^= 1;
#endif
    }
#endif
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        float* c = C + (size_t)(trow * TM + i) * N;
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4*>(c + BCOL(j)) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    }
}
#endif
