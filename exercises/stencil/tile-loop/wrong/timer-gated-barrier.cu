// wrong: [hidden trace] keeps the second barrier only while %globaltimer reads below 2^56: the interpreter's once counted from the launch (small), a GPU's counts nanoseconds since 1970, so the barrier held on the CPU and was gone on a GPU (a red team's, passing every CPU check with exit 0); the interpreter's clocks now read as large as a GPU's
// caught by: race
// on: cpu
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero. R and BLOCK
// come from the lesson (8 and 256). Each block of BLOCK threads handles TILES tiles of BLOCK
// outputs one after another, reusing one shared tile (with its halo) for all of them; n need
// not be a multiple of BLOCK.

#define TILES 4

__device__ __forceinline__ unsigned long long gtimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

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
        // A GPU's global timer counts ns since 1970 (~1.7e18); the interpreter's from the launch.
        if (gtimer() < (1ull << 56)) __syncthreads();
    }
}
