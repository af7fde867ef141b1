// wrong: [token use] the A tile never enters shared memory: each thread loads its A element into a register and a row's lanes get it from 32 ballots, a bit plane each; B is staged and read twice a product, to make up the shared requests A no longer makes
// caught by: yours shuffles == 0
// on: cpu
extern "C" __global__ void matmul_any(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int n)
{
    __shared__ float Bs[TILE][TILE];
    volatile float (*vB)[TILE] = Bs;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int half = (threadIdx.x + TILE * threadIdx.y) & 31 & ~(TILE - 1);
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        float a = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
        Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        __syncthreads();
        unsigned P[32];
        const unsigned ab = __float_as_uint(a);
#pragma unroll
        for (int b = 0; b < 32; ++b) P[b] = __ballot_sync(0xffffffffu, (ab >> b) & 1u);
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            unsigned bits = 0;
#pragma unroll
            for (int b = 0; b < 32; ++b) bits |= ((P[b] >> (half + k)) & 1u) << b;
            float ak = __uint_as_float(bits);
            float b = 0.5f * (vB[k][tx] + vB[k][tx]);
            acc += ak * b;
        }
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
