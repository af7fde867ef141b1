// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero. Each block
// of BLOCK threads handles TILES tiles of BLOCK outputs in turn, through one shared tile.
// The write-after-read barrier sits at the top of the loop here: before a turn overwrites
// the tile, every warp must have finished summing the last turn's. The first turn has no
// last one, so it needs none.

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        // k is the same in every thread, so every thread meets this barrier or none does.
        if (k > 0) __syncthreads();
        tile[t + R] = at(in, i, n);
        if (t < R) {
            tile[t] = at(in, i - R, n);
            tile[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        __syncthreads();
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
        if (i < n) out[i] = sum;
    }
}
