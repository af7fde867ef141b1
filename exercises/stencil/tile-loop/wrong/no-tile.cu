// wrong: [off the point] drops the shared tile and reads every window from global memory: no race left, and each input fetched once per window
// caught by: yours global.sectors less than global by >= 8x
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
    const int t = threadIdx.x;
    for (int k = 0; k < TILES; ++k) {
        const int i = (blockIdx.x * TILES + k) * BLOCK + t;
        float sum = 0.0f;
#pragma unroll
        for (int j = -R; j <= R; ++j) sum += at(in, i + j, n);
        if (i < n) out[i] = sum;
    }
}
