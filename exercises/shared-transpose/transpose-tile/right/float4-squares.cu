// right: where the rows are 16-byte aligned (n % 4 == 0) and the square is whole, each thread loads one float4 of the square (8 lanes a row) and stores one float4 of the transposed square, gathered down a column of the padded tile; one float a lane otherwise.
#define TILE 32
#define ROWS_PER_PASS 8
extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    const bool vec = (n % 4 == 0) && x0 + TILE <= n && y0 + TILE <= n;
    if (vec) {
        int l = ty * 32 + tx;                 // 0..255
        int r = l / 8, c = (l % 8) * 4;
        float4 v = *reinterpret_cast<const float4*>(in + (size_t)(y0 + r) * n + x0 + c);
        tile[r][c] = v.x; tile[r][c + 1] = v.y; tile[r][c + 2] = v.z; tile[r][c + 3] = v.w;
        __syncthreads();
        float4 w = make_float4(tile[c][r], tile[c + 1][r], tile[c + 2][r], tile[c + 3][r]);
        *reinterpret_cast<float4*>(out + (size_t)(x0 + r) * n + y0 + c) = w;
        return;
    }
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int x = x0 + tx, y = y0 + ty + dy;
        if (x < n && y < n) tile[ty + dy][tx] = in[(size_t)y * n + x];
    }
    __syncthreads();
    for (int dy = 0; dy < TILE; dy += ROWS_PER_PASS) {
        int x = y0 + tx, y = x0 + ty + dy;
        if (x < n && y < n) out[(size_t)y * n + x] = tile[tx][ty + dy];
    }
}
