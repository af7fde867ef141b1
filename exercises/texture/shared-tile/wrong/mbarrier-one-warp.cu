// wrong: [block race] the patch handed over with an mbarrier that awaits 32 arrivals a phase, made by the first warp alone: its phase completes when that warp has filled its rows, and every warp reads rows the others may not have written yet
// caught by: race
// on: cpu
#define FX (-1.7f)
#define FY (1.3f)
#define T 32
#define ROWS 8
__device__ float bilerp(float t00, float t10, float t01, float t11, float a, float b)
{
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    return top + b * (bot - top);
}
__device__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

extern "C" __global__ void sample_tiled(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[T + 1][T + 1];
    __shared__ unsigned long long bar;
    const unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0 && threadIdx.y == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(ba), "r"(32) : "memory");
    __syncthreads();
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int ib = (int)floorf(r0 + FX), jb = (int)floorf(c0 + FY);
    const int lane = threadIdx.x;
    for (int jj = threadIdx.y; jj < T + 1; jj += ROWS) {
        const int j = clampi(jb + jj, n);
        s[jj][lane] = in[(size_t)j * n + clampi(ib + lane, n)];
        if (lane == 0) s[jj][T] = in[(size_t)j * n + clampi(ib + T, n)];
    }
    if (threadIdx.y == 0)
        asm volatile("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" :: "r"(ba) : "memory");
    asm volatile("{ .reg .pred p; WAIT%=: mbarrier.try_wait.parity.shared.b64 p, [%0], %1; @!p bra WAIT%=; }" :: "r"(ba), "r"(0) : "memory");
    const int c = c0 + lane;
    for (int rr = threadIdx.y; rr < T; rr += ROWS) {
        const int r = r0 + rr;
        if (r >= n || c >= n) continue;
        float x = r + FX, y = c + FY;
        int i = (int)floorf(x), j = (int)floorf(y);
        float a = x - i, b = y - j;
        int ii = i - ib, jj = j - jb;
        out[(size_t)r * n + c] = bilerp(s[jj][ii], s[jj][ii + 1], s[jj + 1][ii], s[jj + 1][ii + 1], a, b);
    }
}
