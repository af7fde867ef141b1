// A standalone sweep of the GEMM lesson's kernels against cuBLAS SGEMM, for exploring more
// configurations than the lesson's knobs in one call (no gpulab needed):
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o gemm_sweep scripts/gemm_sweep.cu -lcublas
//   ./gemm_sweep                 # the sizes 2048, 4096 and 8192
//   ./gemm_sweep 4096            # or any sizes, multiples of 256
//
// It includes the lesson's own kernel files: `warp-tiled` from kernels/gemm/ladder.cu, and
// kernels/gemm/tuned.cu's gemm_tiles<...> instantiated once per configuration below (the
// defines of a lesson variant, as template arguments). For each size it fills A and B with
// values in [-1, 1), runs cuBLAS (FP32, pedantic math: no tensor cores) for the reference
// output, and for each configuration: checks every element against cuBLAS's within abs 0.01
// (the lesson's tolerance), then times it interleaved with cuBLAS (a cuBLAS run, a kernel
// run, 3 warm-up pairs and then 15 timed pairs, CUDA events), so that a clock that drifts
// over the sweep moves both. Printed per configuration: registers, local memory (spills),
// blocks per SM, shared memory per block, and at each size TFLOP/s and % of cuBLAS (median
// over median), and `WRONG` where the output differs. The last lines name the fastest at
// each size.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The ladder's `warp-tiled` rung: its defines as the lesson gives them.
#define RUNG 7
#define SPLIT 1
#define PADA 4
#define EARLY 1
#define WARP4 1
#include "../kernels/gemm/ladder.cu"
// The ladder's macros would shape tuned.cu's defaults: gone before it is included.
#undef RUNG
#undef SPLIT
#undef PADA
#undef EARLY
#undef WARP4
#undef BM
#undef BN
#undef BK
#undef TM
#undef TN
#undef THREADS
#undef MINB
#undef SWZ
#undef AS_ROW
#undef BCOL
#undef STAGES
#undef LOADS
#undef FETCH
#include "../kernels/gemm/tuned.cu"

#define CHECK(x)                                                                            \
    do {                                                                                    \
        cudaError_t e_ = (x);                                                               \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                     \
                    cudaGetErrorString(e_));                                                \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)
#define CHECK_BLAS(x)                                                                       \
    do {                                                                                    \
        cublasStatus_t s_ = (x);                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x,       \
                    (int)s_);                                                               \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

__host__ __device__ constexpr int minb(int threads, int regs)
{
    return 65536 / (regs * threads) > 1 ? 65536 / (regs * threads) : 1;
}

// One configuration of tuned.cu: BM BN BK TM TN LR STAGES PAIR SWZ REGS, as the lesson's
// defines.
template <int BM_, int BN_, int BK_, int TM_, int TN_, int LR_, int ST_, int PAIR_, int SWZ_,
          int REGS_>
__global__ void __launch_bounds__((BM_ / TM_) * (BN_ / TN_),
                                  minb((BM_ / TM_) * (BN_ / TN_), REGS_))
    sweep_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                 int N, int K)
{
    gemm_tiles<BM_, BN_, BK_, TM_, TN_, LR_, ST_, PAIR_, SWZ_>(A, B, C, N, K);
}

typedef void (*TunedFn)(const float*, const float*, float*, int, int);

struct Config {
    const char* name;
    TunedFn fn; // null: the ladder's warp-tiled
    int bm, bn, bk, tm, tn, lr, stages, pair, swz, regs;
};

#define CFG(name, bm, bn, bk, tm, tn, lr, st, pair, swz, regs)                                \
    Config { name, &sweep_kernel<bm, bn, bk, tm, tn, lr, st, pair, swz, regs>, bm, bn, bk, tm, \
             tn, lr, st, pair, swz, regs }

// The lesson's rungs and the values of `tuned`'s knobs first (named as the lab names them),
// then more configurations than the knobs reach (several defines changed at once).
static const Config CONFIGS[] = {
    {"warp-tiled", nullptr, 128, 128, 8, 8, 8, 4, 1, 0, 0, 255},
    //          name                      BM   BN   BK TM  TN LR ST P SWZ REGS
    CFG("double-buffered",               128, 128,  8,  8,  8, 4, 2, 0, 0, 128),
    CFG("paired",                        128, 128,  8,  8,  8, 4, 2, 1, 0, 128),
    CFG("wide-patch",                    128, 128,  8, 16,  8, 4, 2, 1, 0, 255),
    CFG("tuned",                         128, 128,  8, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@BM=64",                    64, 128,  8, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@BM=256",                  256, 128,  8, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@BN=64",                   128,  64,  8, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@BN=256",                  128, 256,  8, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@BK=16",                   128, 128, 16, 16,  8, 4, 2, 1, 8, 255),
    CFG("tuned@LR=8",                    128, 128,  8, 16,  8, 8, 2, 1, 8, 255),
    CFG("tuned@STAGES=1",                128, 128,  8, 16,  8, 4, 1, 1, 8, 255),
    CFG("tuned@PAIR=0",                  128, 128,  8, 16,  8, 4, 2, 0, 8, 255),
    CFG("tuned@SWZ=0",                   128, 128,  8, 16,  8, 4, 2, 1, 0, 255),
    CFG("tuned@SWZ=4",                   128, 128,  8, 16,  8, 4, 2, 1, 4, 255),
    CFG("tuned@SWZ=16",                  128, 128,  8, 16,  8, 4, 2, 1, 16, 255),
    // 8 x 8 patches, 256 threads a 128 x 128 tile: other budgets and orders.
    CFG("8x8 swz8",                      128, 128,  8,  8,  8, 4, 2, 1, 8, 128),
    CFG("8x8 1stage",                    128, 128,  8,  8,  8, 4, 1, 1, 0, 128),
    CFG("8x8 bk16 regs255",              128, 128, 16,  8,  8, 4, 2, 1, 8, 255),
    CFG("8x8 regs255",                   128, 128,  8,  8,  8, 4, 2, 1, 8, 255),
    CFG("8x8 64x128 regs128",             64, 128,  8,  8,  8, 4, 2, 1, 8, 128),
    CFG("8x8 128x256 bk16 512thr",       128, 256, 16,  8,  8, 4, 2, 1, 8, 128),
    CFG("8x8 256x128 bk16 512thr",       256, 128, 16,  8,  8, 4, 2, 1, 8, 128),
    // 16 x 8 patches, 256 threads on 128 x 256 or 256 x 128 (one block an SM).
    CFG("16x8 128x256 swz0",             128, 256,  8, 16,  8, 4, 2, 1, 0, 255),
    CFG("16x8 128x256 swz4",             128, 256,  8, 16,  8, 4, 2, 1, 4, 255),
    CFG("16x8 128x256 bk16",             128, 256, 16, 16,  8, 4, 2, 1, 8, 255),
    CFG("16x8 256x128 bk16",             256, 128, 16, 16,  8, 4, 2, 1, 8, 255),
    CFG("16x8 256x128 lr8",              256, 128,  8, 16,  8, 8, 2, 1, 8, 255),
    CFG("16x8 128x256 1stage",           128, 256,  8, 16,  8, 4, 1, 1, 8, 255),
    // 16 x 8 on 128 x 128 (128 threads, two blocks an SM): depth and order together.
    CFG("16x8 bk16 swz4",                128, 128, 16, 16,  8, 4, 2, 1, 4, 255),
    CFG("16x8 bk16 swz16",               128, 128, 16, 16,  8, 4, 2, 1, 16, 255),
    CFG("16x8 bk16 1stage",              128, 128, 16, 16,  8, 4, 1, 1, 8, 255),
    CFG("16x8 lr8 swz4",                 128, 128,  8, 16,  8, 8, 2, 1, 4, 255),
    // 8 x 16 patches (the wide side along N).
    CFG("8x16 128x128",                  128, 128,  8,  8, 16, 4, 2, 1, 8, 255),
    CFG("8x16 128x256",                  128, 256,  8,  8, 16, 4, 2, 1, 8, 255),
    CFG("8x16 128x128 lr8",              128, 128,  8,  8, 16, 8, 2, 1, 8, 255),
};
static const int NCONFIGS = sizeof(CONFIGS) / sizeof(CONFIGS[0]);

static int threads_of(const Config& c) { return c.fn ? (c.bm / c.tm) * (c.bn / c.tn) : 256; }
static size_t smem_of(const Config& c)
{
    return c.fn ? (size_t)c.stages * (c.bk * c.bm + 32 + c.bk * c.bn) * 4 : 0;
}

static void launch(const Config& c, const float* A, const float* B, float* C, int n)
{
    if (!c.fn) {
        sgemm<<<dim3(n / 128, n / 128), 256>>>(A, B, C, n, n, n);
        return;
    }
    c.fn<<<dim3(n / c.bn, n / c.bm), threads_of(c), smem_of(c)>>>(A, B, C, n, n);
}

__global__ void fill(float* p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned x = (unsigned)i * 2654435761u ^ seed;
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        x *= 0x846ca68bu;
        x ^= x >> 16;
        p[i] = (x >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

// How many elements differ from the reference by more than tol (NaN counts).
__global__ void count_wrong(const float* got, const float* want, size_t n, float tol,
                            unsigned long long* wrong)
{
    unsigned long long mine = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float d = fabsf(got[i] - want[i]);
        if (!(d <= tol)) ++mine;
    }
    if (mine) atomicAdd(wrong, mine);
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Cell {
    bool ran = false, correct = false;
    double tflops = 0, pct = 0;
};

int main(int argc, char** argv)
{
    std::vector<int> sizes;
    for (int i = 1; i < argc; ++i) sizes.push_back(atoi(argv[i]));
    if (sizes.empty()) sizes = {2048, 4096, 8192};
    for (int s : sizes)
        if (s <= 0 || s % 256) {
            fprintf(stderr, "size %d: give multiples of 256\n", s);
            return 1;
        }

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    printf("device: %s, %d SMs, %d MHz\n", prop.name, prop.multiProcessorCount, khz / 1000);

    cublasHandle_t blas;
    CHECK_BLAS(cublasCreate(&blas));
    CHECK_BLAS(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH));

    // Per configuration: registers, local bytes, blocks per SM.
    std::vector<cudaFuncAttributes> attrs(NCONFIGS);
    std::vector<int> blocks(NCONFIGS);
    for (int i = 0; i < NCONFIGS; ++i) {
        const Config& c = CONFIGS[i];
        const void* f = c.fn ? (const void*)c.fn : (const void*)sgemm;
        if (c.fn)
            CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)smem_of(c)));
        CHECK(cudaFuncGetAttributes(&attrs[i], f));
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks[i], f, threads_of(c),
                                                             smem_of(c)));
    }

    std::vector<std::vector<Cell>> cells(NCONFIGS, std::vector<Cell>(sizes.size()));
    std::vector<double> blas_tflops(sizes.size());
    cudaEvent_t e0, e1, e2;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreate(&e2));
    unsigned long long* wrong;
    CHECK(cudaMalloc(&wrong, sizeof(*wrong)));

    for (size_t si = 0; si < sizes.size(); ++si) {
        const int n = sizes[si];
        const size_t elems = (size_t)n * n;
        const double flops = 2.0 * n * (double)n * n;
        float *A, *B, *C, *R;
        CHECK(cudaMalloc(&A, elems * 4));
        CHECK(cudaMalloc(&B, elems * 4));
        CHECK(cudaMalloc(&C, elems * 4));
        CHECK(cudaMalloc(&R, elems * 4));
        fill<<<1024, 256>>>(A, elems, 0x1234u);
        fill<<<1024, 256>>>(B, elems, 0x9876u);
        const float one = 1.0f, zero = 0.0f;
        // Row-major C = A B is column-major C^T = B^T A^T.
        auto blas_run = [&](float* out) {
            CHECK_BLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, n, A, n,
                                   &zero, out, n));
        };
        blas_run(R);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> blas_ms_all;
        for (int i = 0; i < NCONFIGS; ++i) {
            const Config& c = CONFIGS[i];
            if (c.fn && (n % c.bm || n % c.bn || n % c.bk)) continue;
            CHECK(cudaMemset(C, 0xff, elems * 4)); // NaN: an element not written fails
            launch(c, A, B, C, n);
            CHECK(cudaGetLastError());
            CHECK(cudaMemset(wrong, 0, sizeof(*wrong)));
            count_wrong<<<1024, 256>>>(C, R, elems, 0.01f, wrong);
            unsigned long long bad = 0;
            CHECK(cudaMemcpy(&bad, wrong, sizeof(bad), cudaMemcpyDeviceToHost));
            std::vector<float> ks, bs;
            for (int r = 0; r < 18; ++r) {
                CHECK(cudaEventRecord(e0));
                blas_run(C);
                CHECK(cudaEventRecord(e1));
                launch(c, A, B, C, n);
                CHECK(cudaEventRecord(e2));
                CHECK(cudaEventSynchronize(e2));
                float b_ms, k_ms;
                CHECK(cudaEventElapsedTime(&b_ms, e0, e1));
                CHECK(cudaEventElapsedTime(&k_ms, e1, e2));
                if (r >= 3) {
                    bs.push_back(b_ms);
                    ks.push_back(k_ms);
                }
            }
            CHECK(cudaGetLastError());
            Cell& cell = cells[i][si];
            cell.ran = true;
            cell.correct = bad == 0;
            const float km = median(ks), bm = median(bs);
            cell.tflops = flops / (km * 1e-3) / 1e12;
            cell.pct = 100.0 * bm / km;
            blas_ms_all.insert(blas_ms_all.end(), bs.begin(), bs.end());
            if (bad)
                fprintf(stderr, "%s at %d: %llu elements differ from cuBLAS by more than 0.01\n",
                        c.name, n, bad);
        }
        blas_tflops[si] = flops / (median(blas_ms_all) * 1e-3) / 1e12;
        CHECK(cudaFree(A));
        CHECK(cudaFree(B));
        CHECK(cudaFree(C));
        CHECK(cudaFree(R));
    }

    printf("\n%-22s %4s %5s %3s %6s", "configuration", "regs", "local", "blk", "smem");
    for (int s : sizes) printf(" | %5d: TFLOP/s  %%cuBLAS", s);
    printf("\n%-22s %4s %5s %3s %6s", "cuBLAS SGEMM (FP32)", "", "", "", "");
    for (size_t si = 0; si < sizes.size(); ++si)
        printf(" |        %8.1f   100.0", blas_tflops[si]);
    printf("\n");
    for (int i = 0; i < NCONFIGS; ++i) {
        const Config& c = CONFIGS[i];
        printf("%-22s %4d %5zu %3d %6zu", c.name, attrs[i].numRegs, attrs[i].localSizeBytes,
               blocks[i], smem_of(c) + attrs[i].sharedSizeBytes);
        for (size_t si = 0; si < sizes.size(); ++si) {
            const Cell& cell = cells[i][si];
            if (!cell.ran)
                printf(" |        %8s  %6s", "-", "-");
            else
                printf(" |        %8.1f  %6.1f%s", cell.tflops, cell.pct,
                       cell.correct ? "" : " WRONG");
        }
        printf("\n");
    }
    for (size_t si = 0; si < sizes.size(); ++si) {
        int best = -1;
        for (int i = 0; i < NCONFIGS; ++i)
            if (cells[i][si].ran && cells[i][si].correct &&
                (best < 0 || cells[i][si].pct > cells[best][si].pct))
                best = i;
        if (best >= 0)
            printf("fastest at %d: %s, %.1f TFLOP/s, %.1f%% of cuBLAS\n", sizes[si],
                   CONFIGS[best].name, cells[best][si].tflops, cells[best][si].pct);
    }
    CHECK_BLAS(cublasDestroy(blas));
    return 0;
}
