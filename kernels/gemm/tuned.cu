// SGEMM past `warp-tiled`: C = A B for row-major f32 (A M x K, B K x N, C M x N), sizes
// multiples of the tiles (no bounds tests). One kernel, shaped by defines:
//   BM x BN  the block's tile of C;  BK  the depth of one shared tile of A and of B
//   TM x TN  a thread's patch of C (multiples of 4: read from shared memory in runs of 4,
//            each run one 16-byte load; the runs of neighbouring threads lie side by side)
//   LR       a warp is LR x (32 / LR) threads, rows x columns of patches
//   STAGES   1: one shared buffer, two barriers a tile (as `warp-tiled`); 2: two buffers,
//            one barrier a tile, the next tile stored while this one is multiplied
//   PAIR     0: lane l sits at row l / LC, column l % LC (as `warp-tiled`); 1: lanes l and
//            l ^ 1 read the same A word and l and l ^ 2 the same B word, so both halves of a
//            16-byte load are served together (see analysis/banks.rs on pairs)
//   SWZ      0: blocks take tiles in launch order; n: a band of n block rows is walked
//            column by column, so blocks running together share rows of A and columns of B
//   REGS     the registers a thread may have (at most 255): the launch bounds ask ptxas to
//            fit 64K / (REGS x threads) blocks in an SM's register file (at least one)
// Every configuration keeps the next tile's global loads in flight (16-byte loads into
// registers) while the current tile is multiplied. A's tile is stored transposed, k-major,
// with 32 floats of padding spread over its groups of 4 rows of k, so the transposing stores
// of a warp fall in 32 different banks. Shared memory is dynamic: the launch gives
// STAGES * (BK * BM + 32 + BK * BN) * 4 bytes, since large tiles pass the 48 KiB a static
// array may have. The body is a template so that one file serves every configuration (the
// lesson's knobs, and the standalone sweep in scripts/, which instantiates many at once).

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef LR
#define LR 4
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef PAIR
#define PAIR 0
#endif
#ifndef SWZ
#define SWZ 0
#endif
#ifndef REGS
#define REGS 255
#endif

__host__ __device__ constexpr int log2i(int x) { return x <= 1 ? 0 : 1 + log2i(x / 2); }

template <int BM_, int BN_, int BK_, int TM_, int TN_, int LR_, int STAGES_, int PAIR_, int SWZ_>
__device__ __forceinline__ void gemm_tiles(const float* __restrict__ A,
                                           const float* __restrict__ B,
                                           float* __restrict__ C, int N, int K)
{
    constexpr int LC = 32 / LR_;           // a warp's columns of threads
    constexpr int NTHR = (BM_ / TM_) * (BN_ / TN_);
    constexpr int WTM = LR_ * TM_;         // a warp's tile of C: WTM x WTN
    constexpr int WTN = LC * TN_;
    constexpr int WN = BN_ / WTN;          // warps along a row of the block tile
    // A warp loads RW rows of A, BK / 4 16-byte words each: lane l takes row l % RW, word
    // l / RW. Its transposing stores at one k then write RW rows at each of the BK / 4
    // groups of k; a pad of RW floats per group puts group g's rows at banks g RW onwards.
    constexpr int RW = 128 / BK_;
    constexpr int APAD = RW;
    constexpr int AS = BK_ * BM_ + (BK_ / 4) * APAD; // one stage of A (= BK BM + 32)
    constexpr int BS = BK_ * BN_;
    constexpr int LA = BM_ * BK_ / 4 / NTHR;      // 16-byte loads of A per thread and tile
    constexpr int LB = BK_ * BN_ / 4 / NTHR;
    static_assert(TM_ % 4 == 0 && TN_ % 4 == 0, "a thread's patch is runs of 4");
    static_assert(LR_ >= 2 && LC >= 2 && LR_ * LC == 32, "a warp is LR x LC threads");
    static_assert(BM_ % WTM == 0 && BN_ % WTN == 0, "the block tile is whole warp tiles");
    static_assert(NTHR % 32 == 0 && NTHR <= 1024, "whole warps, at most 1024 threads");
    static_assert(BK_ >= 4 && BK_ <= 32 && 32 % (BK_ / 4) == 0, "BK is 4, 8, 16 or 32");
    static_assert(LA * NTHR * 4 == BM_ * BK_ && LB * NTHR * 4 == BK_ * BN_,
                  "every thread loads the same number of 16-byte words");
    static_assert(STAGES_ == 1 || STAGES_ == 2, "one or two shared buffers");

    extern __shared__ __align__(16) float smem[];
    float* As = smem;
    float* Bs = smem + STAGES_ * AS;

    int bx = blockIdx.x, by = blockIdx.y;
    if (SWZ_ > 0) {
        // Bands of SWZ block rows (the last may be shorter), each walked column by column.
        const int lin = by * gridDim.x + bx;
        const int per_band = SWZ_ * gridDim.x;
        const int first = lin / per_band * SWZ_;
        const int rows = min((int)gridDim.y - first, SWZ_);
        const int in_band = lin % per_band;
        by = first + in_band % rows;
        bx = in_band / rows;
    }
    A += (size_t)by * BM_ * K;
    B += bx * BN_;
    C += (size_t)by * BM_ * N + bx * BN_;

    const int t = threadIdx.x, w = t / 32, lane = t % 32;
    int lr, lc;
    if (PAIR_) {
        // lc from lane bits 0, 2, 3, ...; lr from bit 1 and the bits above lc's.
        lc = (lane & 1) | (((lane >> 2) & (LC / 2 - 1)) << 1);
        lr = ((lane >> 1) & 1) | ((lane >> (log2i(LC) + 1)) << 1);
    } else {
        lc = lane % LC;
        lr = lane / LC;
    }
    // The thread's first row and column in the block tile; run r of its rows starts
    // r LR 4 rows further, run c of its columns c LC 4 columns further.
    const int arow = (w / WN) * WTM + lr * 4;
    const int bcol = (w % WN) * WTN + lc * 4;

    float acc[TM_][TN_];
#pragma unroll
    for (int i = 0; i < TM_; ++i)
#pragma unroll
        for (int j = 0; j < TN_; ++j) acc[i][j] = 0.0f;

    float4 ra[LA], rb[LB];
    // Load l of A: row w' RW + lane % RW (w' the warp the load counts as), k 4 (lane / RW).
    auto fetch = [&](int k0) {
#pragma unroll
        for (int l = 0; l < LA; ++l) {
            const int row = (w + l * (NTHR / 32)) * RW + lane % RW;
            ra[l] = *reinterpret_cast<const float4*>(A + (size_t)row * K + k0 + lane / RW * 4);
        }
#pragma unroll
        for (int l = 0; l < LB; ++l) {
            const int i = t + l * NTHR;
            rb[l] = *reinterpret_cast<const float4*>(B + (size_t)(k0 + i / (BN_ / 4)) * N +
                                                     i % (BN_ / 4) * 4);
        }
    };
    auto store = [&](int s) {
        float* as = As + s * AS;
        float* bs = Bs + s * BS;
#pragma unroll
        for (int l = 0; l < LA; ++l) {
            const int row = (w + l * (NTHR / 32)) * RW + lane % RW;
            const int g = lane / RW; // the group of 4 k
            float* p = as + (g * 4) * BM_ + g * APAD + row;
            p[0 * BM_] = ra[l].x;
            p[1 * BM_] = ra[l].y;
            p[2 * BM_] = ra[l].z;
            p[3 * BM_] = ra[l].w;
        }
#pragma unroll
        for (int l = 0; l < LB; ++l) {
            const int i = t + l * NTHR;
            *reinterpret_cast<float4*>(bs + i / (BN_ / 4) * BN_ + i % (BN_ / 4) * 4) = rb[l];
        }
    };
    auto multiply = [&](int s) {
        const float* as = As + s * AS + arow;
        const float* bs = Bs + s * BS + bcol;
#pragma unroll
        for (int k = 0; k < BK_; ++k) {
            float am[TM_], bn[TN_];
#pragma unroll
            for (int r = 0; r < TM_ / 4; ++r) {
                const float4 v = *reinterpret_cast<const float4*>(
                    as + k * BM_ + (k / 4) * APAD + r * LR_ * 4);
                am[r * 4 + 0] = v.x;
                am[r * 4 + 1] = v.y;
                am[r * 4 + 2] = v.z;
                am[r * 4 + 3] = v.w;
            }
#pragma unroll
            for (int c = 0; c < TN_ / 4; ++c) {
                const float4 v = *reinterpret_cast<const float4*>(bs + k * BN_ + c * LC * 4);
                bn[c * 4 + 0] = v.x;
                bn[c * 4 + 1] = v.y;
                bn[c * 4 + 2] = v.z;
                bn[c * 4 + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM_; ++i)
#pragma unroll
                for (int j = 0; j < TN_; ++j) acc[i][j] += am[i] * bn[j];
        }
    };

    fetch(0);
    if (STAGES_ == 2) {
        store(0);
        __syncthreads();
        int s = 0;
        for (int k0 = 0; k0 < K; k0 += BK_) {
            // The next tile's loads fly while this one is multiplied, then go to the other
            // buffer: its last reads were before the barrier that ended the previous tile.
            // After the last tile the last is fetched again and stored where no one reads:
            // with no branch, ptxas keeps the loads at the top of the multiplications
            // rather than sinking them down to the stores that use them.
            fetch(min(k0 + BK_, K - BK_));
            multiply(s);
            store(s ^ 1);
            __syncthreads();
            s ^= 1;
        }
    } else {
        for (int k0 = 0; k0 < K; k0 += BK_) {
            store(0);
            __syncthreads();
            fetch(min(k0 + BK_, K - BK_));
            multiply(0);
            __syncthreads();
        }
    }

#pragma unroll
    for (int i = 0; i < TM_; ++i) {
        float* c = C + (size_t)(arow + (i / 4) * LR_ * 4 + i % 4) * N + bcol;
#pragma unroll
        for (int j = 0; j < TN_; j += 4)
            *reinterpret_cast<float4*>(c + (j / 4) * LC * 4) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    }
}

#define THREADS ((BM / TM) * (BN / TN))
#define MINB (65536 / (REGS * THREADS) > 1 ? 65536 / (REGS * THREADS) : 1)
extern "C" __global__ void __launch_bounds__(THREADS, MINB)
    sgemm_tuned(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K)
{
    gemm_tiles<BM, BN, BK, TM, TN, LR, STAGES, PAIR, SWZ>(A, B, C, N, K);
}
