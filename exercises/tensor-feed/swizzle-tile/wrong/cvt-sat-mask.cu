// wrong: [hidden trace] the plain layout, 8 wavefronts an ldmatrix: the swizzle term is masked by cvt.sat.u32.s32(-1), 0 on a GPU (saturated) and all ones where the interpreter ignored .sat on an integer cvt, which judged a swizzled tile
// caught by: yours shared.conflicts_per_request == 0
// on: cpu
// The tiles' rows are 64 bf16 = 128 bytes, as they come: element (r, c) at r * 64 + c.

#define N 64

// hi and lo rounded to bf16, hi in the upper half of the word.
__device__ __forceinline__ unsigned pair(float hi, float lo)
{
    unsigned p;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(hi), "f"(lo));
    return p;
}

// Where element (r, c) of a tile lies in shared memory, in elements. c % 8 is kept, so a
// 16-byte chunk of eight elements stays whole.
__device__ __forceinline__ unsigned at(unsigned r, unsigned c)
{
    unsigned m;
    asm("cvt.sat.u32.s32 %0, %1;" : "=r"(m) : "r"(-1));
    return r * N + (c ^ (((r & 7u) << 3) & m));
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

// C = A B for each block's own 64 x 64 A and B (B stored a row per column of C), reps
// times over, four warps each a 16-row strip of C.
extern "C" __global__ void feed(const float* __restrict__ a, const float* __restrict__ bt,
                                float* __restrict__ c, int reps)
{
    __shared__ alignas(16) unsigned short sa[N * N];
    __shared__ alignas(16) unsigned short sb[N * N];
    const float* ga = a + (size_t)blockIdx.x * N * N;
    const float* gb = bt + (size_t)blockIdx.x * N * N;
    for (unsigned e = threadIdx.x; e < N * N / 8; e += blockDim.x) {
        stage(sa, ga, e / 8, 8 * (e % 8));
        stage(sb, gb, e / 8, 8 * (e % 8));
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float acc[8][4] = {};
    for (int rep = 0; rep < reps; ++rep) {
        // The tiles do not change between reps: this barrier keeps ptxas from loading the
        // fragments once before the loop, so each rep loads them again.
        __syncwarp();
        for (unsigned k = 0; k < N; k += 16) {
            // A: lane l names row l % 16 of the warp's strip at column k + 8 (l / 16).
            unsigned fa[4];
            ldmatrix_x4(fa, &sa[at(16 * warp + lane % 16, k + 8 * (lane / 16))]);
            // B, two 8-column tiles at a time: lane l names column n0 + l % 8 + 8 (l / 16)
            // at k + 8 ((l / 8) % 2).
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
