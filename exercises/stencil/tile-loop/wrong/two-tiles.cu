// wrong: [unchecked structure] alternates between two tiles, so a turn overwrites the tile of two turns back, which every warp left before the last barrier: race-free with one barrier a turn, and twice the shared memory of the one reused tile the task asks for
// caught by: yours smem at most 1.1x solution
// on: cpu
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero. R and BLOCK
// come from the lesson (8 and 256). Each block of BLOCK threads handles TILES tiles of BLOCK
// outputs one after another, reusing one shared tile (with its halo) for all of them; n need
// not be a multiple of BLOCK.

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[2][BLOCK + 2 * R];
    const int t = threadIdx.x;
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        float* buf = tile[k & 1];
        buf[t + R] = at(in, i, n);
        if (t < R) {
            buf[t] = at(in, i - R, n);
            buf[t + BLOCK + R] = at(in, i + BLOCK, n);
        }
        __syncthreads();
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += buf[t + R + j];
        if (i < n) out[i] = sum;
    }
}
