// right: lanes along the columns of C, as the solution's, with the tiles filled by float4 loads where a row of A and B is 16-byte aligned (n % 4 == 0): the first 8 warps each fill 4 rows of each tile, 8 lanes a row, 16 sectors a request with every byte used; scalar loads otherwise.
extern "C" __global__ void matmul_rows(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n)
{
    __shared__ __align__(16) float As[TILE][TILE];
    __shared__ __align__(16) float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const bool vec = (n % 4) == 0;
    float acc = 0.0f;
    for (int t0 = 0; t0 < n; t0 += TILE) {
        if (vec) {
            if (ty < 8) {
                int r = ty * 4 + tx / 8;          // tile row this lane fills
                int c = (tx % 8) * 4;             // first of its four columns
                int ar = blockIdx.y * TILE + r, ac = t0 + c;
                float4 a = make_float4(0.f, 0.f, 0.f, 0.f);
                if (ar < n && ac < n) a = *reinterpret_cast<const float4*>(A + (size_t)ar * n + ac);
                *reinterpret_cast<float4*>(&As[r][c]) = a;
                int br = t0 + r, bc = blockIdx.x * TILE + c;
                float4 b = make_float4(0.f, 0.f, 0.f, 0.f);
                if (br < n && bc < n) b = *reinterpret_cast<const float4*>(B + (size_t)br * n + bc);
                *reinterpret_cast<float4*>(&Bs[r][c]) = b;
            }
        } else {
            As[ty][tx] = (row < n && t0 + tx < n) ? A[(size_t)row * n + t0 + tx] : 0.0f;
            Bs[ty][tx] = (t0 + ty < n && col < n) ? B[(size_t)(t0 + ty) * n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
