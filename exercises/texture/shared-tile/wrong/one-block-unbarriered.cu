// wrong: [block race] leaves out the barrier between filling the patch and reading it in one block only, (100, 100), which only the lesson's size has: a thread there may read a texel another warp has not brought in yet
// caught by: yours shared.races == 0
// on: gpu - the block exists only at the lesson's size, where the interpreter traces a few blocks drawn from 16,384; a GPU's census finds the block whose warps make one barrier fewer and traces it
#define FX (-1.7f)
#define FY (1.3f)
#define T 32
#define ROWS 8
#define P (T + 1)

__device__ __forceinline__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

extern "C" __global__ void sample_tiled(const float* __restrict__ in, float* __restrict__ out,
                                        int n)
{
    // patch[jj][ii] = in[clamp(j0 + jj)][clamp(i0 + ii)], j0 = c0 + 1, i0 = r0 - 2
    __shared__ float patch[P][P];
    const int c0 = blockIdx.x * T, r0 = blockIdx.y * T;
    const int jb = c0 + 1, ib = r0 - 2;
    const int tid = threadIdx.y * T + threadIdx.x;
    for (int k = tid; k < P * P; k += T * ROWS) {
        int jj = k / P, ii = k - jj * P;
        patch[jj][ii] = in[(size_t)clampi(jb + jj, n) * n + clampi(ib + ii, n)];
    }
    if (!(blockIdx.x == 100 && blockIdx.y == 100)) __syncthreads();
    const int c = c0 + threadIdx.x;
    if (c >= n) return;
    const float y = c + FY;
    const int j = (int)floorf(y);
    const float b = y - j;
    const int jj = j - jb;
    #pragma unroll 2
    for (int rr = threadIdx.y; rr < T; rr += ROWS) {
        const int r = r0 + rr;
        if (r >= n) break;
        const float x = r + FX;
        const int i = (int)floorf(x);
        const float a = x - i;
        const int ii = i - ib;
        float t00 = patch[jj][ii], t10 = patch[jj][ii + 1];
        float t01 = patch[jj + 1][ii], t11 = patch[jj + 1][ii + 1];
        float top = t00 + a * (t10 - t00);
        float bot = t01 + a * (t11 - t01);
        out[(size_t)r * n + c] = top + b * (bot - top);
    }
}
