// C = A B on the tensor cores, fed from shared memory by ldmatrix: every block multiplies
// its own 64 x 64 A by its own 64 x 64 B (bf16, the floats rounded to the nearest) into a
// 64 x 64 C in f32, `reps` times over (C holds reps times the product), with four warps,
// each a 16-row strip of C. A's rows and B's columns (B stored transposed, a row per
// column n) lie in shared memory as 64 bf16 = 128 bytes, and how those rows lie decides
// the bank conflicts of ldmatrix, which serves one 8 x 8 matrix (eight 16-byte rows, named
// by eight lanes) at a time:
//   LAYOUT 0 (plain):    row r at 128 r bytes: a matrix's eight rows fall in the same four
//                        banks, 8 wavefronts a matrix;
//   LAYOUT 1 (padded):   rows 144 bytes apart, each 16 bytes further round the banks:
//                        1 wavefront a matrix, for 12.5% more shared memory;
//   LAYOUT 2 (swizzled): rows of 128 bytes whose 16-byte chunks are permuted, chunk c of
//                        row r at chunk c ^ (r % 8), as the TMA's 128-byte swizzle writes
//                        a tile: 1 wavefront a matrix, in the plain tile's bytes.
// Every layout makes the same mma.sync in the same order: the same C to the last bit.

#ifndef LAYOUT
#define LAYOUT 0
#endif

#define N 64
#if LAYOUT == 1
#define STRIDE (N + 8)
#else
#define STRIDE N
#endif

// Where element (r, c) of a tile lies in shared memory, in elements; c % 8 is kept, so a
// 16-byte chunk stays whole.
__device__ __forceinline__ unsigned at(unsigned r, unsigned c)
{
#if LAYOUT == 2
    return r * STRIDE + ((((c / 8) ^ (r % 8)) * 8) | (c % 8));
#else
    return r * STRIDE + c;
#endif
}

// hi and lo rounded to bf16, hi in the upper half of the word.
__device__ __forceinline__ unsigned pair(float hi, float lo)
{
    unsigned p;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(hi), "f"(lo));
    return p;
}

// Eight floats of row r from column c, as one 16-byte chunk of bf16 at (r, c).
__device__ __forceinline__ void stage(unsigned short* tile, const float* src, unsigned r,
                                      unsigned c)
{
    const float4 x = *(const float4*)(src + r * N + c);
    const float4 y = *(const float4*)(src + r * N + c + 4);
    uint4 w = make_uint4(pair(x.y, x.x), pair(x.w, x.z), pair(y.y, y.x), pair(y.w, y.z));
    *(uint4*)(tile + at(r, c)) = w;
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&f)[4], const unsigned short* p)
{
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(f[0]), "=r"(f[1]), "=r"(f[2]), "=r"(f[3])
                 : "r"(a));
}

__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                    unsigned b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void feed(const float* __restrict__ a, const float* __restrict__ bt,
                                float* __restrict__ c, int reps)
{
    __shared__ alignas(16) unsigned short sa[N * STRIDE];
    __shared__ alignas(16) unsigned short sb[N * STRIDE];
    const float* ga = a + (size_t)blockIdx.x * N * N;
    const float* gb = bt + (size_t)blockIdx.x * N * N;
    // 512 chunks a tile, 128 threads: thread t stages chunk t % 8 of rows t / 8 + 16 i.
    for (unsigned e = threadIdx.x; e < N * N / 8; e += blockDim.x) {
        stage(sa, ga, e / 8, 8 * (e % 8));
        stage(sb, gb, e / 8, 8 * (e % 8));
    }
    __syncthreads();

    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float acc[8][4] = {};
    for (int rep = 0; rep < reps; ++rep) {
        // The tiles do not change from one rep to the next: without a barrier here ptxas
        // would load the fragments once, before the loop, and every rep would find them
        // in registers. The warp's barrier orders its shared accesses, so each rep loads
        // them again, as a kernel whose tiles change would.
        __syncwarp();
        for (unsigned k = 0; k < N; k += 16) {
            // A: lane l names row l % 16 of the warp's strip at column k + 8 (l / 16): the
            // matrices (rows 0-7, k..k+7), (8-15, k..), (0-7, k+8..), (8-15, k+8..).
            unsigned fa[4];
            ldmatrix_x4(fa, &sa[at(16 * warp + lane % 16, k + 8 * (lane / 16))]);
            // B, two columns' tiles of 8 at a time: lane l names column n0 + l % 8 + 8 (l / 16)
            // at k + 8 ((l / 8) % 2), so f[0], f[1] are tile n0's and f[2], f[3] tile n0 + 8's.
            for (unsigned n0 = 0; n0 < N; n0 += 16) {
                unsigned fb[4];
                const unsigned n = n0 + lane % 8 + 8 * (lane / 16);
                ldmatrix_x4(fb, &sb[at(n, k + 8 * ((lane / 8) % 2))]);
                mma(acc[n0 / 8], fa, fb[0], fb[1]);
                mma(acc[n0 / 8 + 1], fa, fb[2], fb[3]);
            }
        }
    }
    // C's fragment of tile j: (g, 8j + 2q..) and (g + 8, 8j + 2q..), g = lane / 4, q = lane % 4.
    float* out = c + (size_t)blockIdx.x * N * N + 16 * warp * N;
    const unsigned g = lane / 4, q = lane % 4;
    for (unsigned j = 0; j < 8; ++j) {
        *(float2*)&out[g * N + 8 * j + 2 * q] = make_float2(acc[j][0], acc[j][1]);
        *(float2*)&out[(g + 8) * N + 8 * j + 2 * q] = make_float2(acc[j][2], acc[j][3]);
    }
}

// The same product on the CUDA cores, for the check: each thread one element of C, its
// inputs rounded to bf16 as the tiles round them, added up reps times over as the tensor
// cores add them (the same work, done by a plain loop from global memory, not a tuned
// CUDA-core GEMM).
__device__ __forceinline__ float bf16(float x)
{
    return __uint_as_float(pair(x, 0.f) & 0xffff0000u);
}

extern "C" __global__ void simt(const float* __restrict__ a, const float* __restrict__ bt,
                                float* __restrict__ c, int reps)
{
    const float* ga = a + (size_t)blockIdx.x * N * N;
    const float* gb = bt + (size_t)blockIdx.x * N * N;
    for (unsigned e = threadIdx.x; e < N * N; e += blockDim.x) {
        const unsigned i = e / N, j = e % N;
        float s = 0.f;
        for (int rep = 0; rep < reps; ++rep)
            for (unsigned k = 0; k < N; ++k) s += bf16(ga[i * N + k]) * bf16(gb[j * N + k]);
        c[(size_t)blockIdx.x * N * N + e] = s;
    }
}
