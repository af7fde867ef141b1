// wrong: [unchecked structure] drops the one reused tile: each turn's windows are summed by warp shuffles, and shared memory holds only each warp's R-word edges, alternating between two sets so one barrier a turn is race-free; no tile, no reuse, no second barrier, within the tile's shared size
// caught by: yours shuffles == 0
// on: cpu
#define TILES 4
#define WARPS (BLOCK / 32)

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    // lo[s][w]: first R values of warp w (w == WARPS: the right halo);
    // hi[s][w]: last R values of warp w - 1 (w == 0: the left halo).
    __shared__ float lo[2][WARPS + 1][R];
    __shared__ float hi[2][WARPS + 1][R];
    const int t = threadIdx.x, lane = t & 31, w = t >> 5;
    for (int k = 0; k < TILES; ++k) {
        const int s = k & 1;
        const int first = (blockIdx.x * TILES + k) * BLOCK;
        const int i = first + t;
        float v = at(in, i, n);
        if (lane < R) lo[s][w][lane] = v;
        if (lane >= 32 - R) hi[s][w + 1][lane - (32 - R)] = v;
        if (t < R) {
            hi[s][0][t] = at(in, first - R + t, n);
            lo[s][WARPS][t] = at(in, first + BLOCK + t, n);
        }
        __syncthreads();
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) {
            float x = __shfl_sync(0xffffffffu, v, (lane + j) & 31);
            int l = lane + j;
            if (l < 0) x = hi[s][w][l + R];
            else if (l >= 32) x = lo[s][w + 1][l - 32];
            sum += x;
        }
        if (i < n) out[i] = sum;
    }
}
