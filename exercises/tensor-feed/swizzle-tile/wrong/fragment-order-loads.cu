// wrong: [token use] lays the tiles out in fragment order, so that a lane's four fragment registers are one 16-byte word, and reads them with plain 16-byte shared loads (a request each, as ldmatrix.x4 makes): no conflicts and the solution's requests, with one ldmatrix a warp kept for show
// caught by: yours shared.matrix_reads_pct at least 0.95x solution
// on: cpu

#define N 64

__device__ __forceinline__ unsigned pair(float hi, float lo)
{
    unsigned p;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(hi), "f"(lo));
    return p;
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

// Fragment block fb = strip * 4 + kstep, lane L = g * 4 + q: 4 words. A: reg i = hr + 2 hc,
// B: reg i = hc + 2 hr (row g + 8 hr, column 2q + 8 hc of the 16 x 16 block).
__device__ __forceinline__ void fill(uint4* tile, const float* src, unsigned e, bool isB)
{
    const unsigned fb = e / 32, L = e % 32, s = fb / 4, kk = fb % 4, g = L / 4, q = L % 4;
    unsigned w[4];
#pragma unroll
    for (unsigned i = 0; i < 4; ++i) {
        const unsigned hr = isB ? i / 2 : i % 2, hc = isB ? i % 2 : i / 2;
        const float2 v = *(const float2*)(src + (s * 16 + g + 8 * hr) * N + kk * 16 + 2 * q + 8 * hc);
        w[i] = pair(v.y, v.x);
    }
    tile[e] = make_uint4(w[0], w[1], w[2], w[3]);
}

extern "C" __global__ void feed(const float* __restrict__ a, const float* __restrict__ bt,
                                float* __restrict__ c, int reps)
{
    __shared__ alignas(16) uint4 sa[N * N / 8];
    __shared__ alignas(16) uint4 sb[N * N / 8];
    const float* ga = a + (size_t)blockIdx.x * N * N;
    const float* gb = bt + (size_t)blockIdx.x * N * N;
    for (unsigned e = threadIdx.x; e < N * N / 8; e += blockDim.x) {
        fill(sa, ga, e, false);
        fill(sb, gb, e, true);
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float acc[8][4] = {};
    // the token: one ldmatrix.x4 per warp, its value tested against a pattern random inputs never make
    {
        unsigned t[4];
        ldmatrix_x4(t, (const unsigned short*)sa + lane * 8);
        if ((t[0] & t[1] & t[2] & t[3]) == 0xffffffffu) acc[0][0] += 1.0f; // four NaN pairs: never
    }
    for (int rep = 0; rep < reps; ++rep) {
        __syncwarp();
        for (unsigned k = 0; k < N; k += 16) {
            const uint4 va = sa[(warp * 4 + k / 16) * 32 + lane];
            const unsigned fa[4] = {va.x, va.y, va.z, va.w};
            for (unsigned n0 = 0; n0 < N; n0 += 16) {
                const uint4 vb = sb[((n0 / 16) * 4 + k / 16) * 32 + lane];
                mma(acc[n0 / 8], fa, vb.x, vb.y);
                mma(acc[n0 / 8 + 1], fa, vb.z, vb.w);
            }
        }
    }
    float* out = c + (size_t)blockIdx.x * N * N + 16 * warp * N;
    const unsigned g = lane / 4, q = lane % 4;
    for (unsigned j = 0; j < 8; ++j) {
        *(float2*)&out[g * N + 8 * j + 2 * q] = make_float2(acc[j][0], acc[j][1]);
        *(float2*)&out[(g + 8) * N + 8 * j + 2 * q] = make_float2(acc[j][2], acc[j][3]);
    }
}
