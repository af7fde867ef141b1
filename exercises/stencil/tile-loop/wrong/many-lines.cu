// wrong: [hidden trace] keeps the racy second barrier out and re-reads each warp's own tile words from 64 source lines first, so that an analysis keeping 64 lines a word would forget the neighbour's reads
// caught by: race
// on: cpu
#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

__device__ __forceinline__ void spin(unsigned& x)
{
#pragma unroll 1
    for (int q = 0; q < 1500; ++q) asm volatile("add.u32 %0, %0, 1;" : "+r"(x));
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    volatile float* vt = tile;
    const int t = threadIdx.x;
    unsigned x = 0;
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        tile[t + R] = at(in, i, n);
        if (t < R) {
            tile[t] = at(in, i - R, n);
            tile[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        __syncthreads();
        float d = 0.0f;
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        d += vt[t + R] + vt[t < R ? t : t + R] + vt[t < R ? t + BLOCK + R : t + R];
        spin(x);
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
        sum += d * 0.0f;
        spin(x);
        __syncwarp();
        if (i < n) out[i] = sum;
    }
    if (x == 1u) out[0] = 0.0f;
}
