// wrong: [token use] the transpose is done in registers by a 5-stage shfl_xor butterfly in warp 0; each value makes a round trip through the lane's own shared word first, so shared requests (32 stores + 32 loads a block), conflicts (0) and global sectors all match the solution
// caught by: yours shuffles == 0
// on: cpu
#define TILE 32
extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    if (threadIdx.y != 0) return;
    const int l = threadIdx.x;
    float v[32];
    int x = blockIdx.x * TILE + l;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        int y = blockIdx.y * TILE + r;
        float a = (x < n && y < n) ? in[(size_t)y * n + x] : 0.0f;
        v[r] = a;
        if (y < n) tile[r][l] = a;          // one store request per row in the matrix, as the solution
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < 32; ++r)            // and one load per such row (the totals over the grid match)
        if (blockIdx.y * TILE + r < n) v[r] = ((volatile float*)&tile[r][0])[l];
#pragma unroll
    for (int k = 16; k > 0; k >>= 1) {
#pragma unroll
        for (int r = 0; r < 32; ++r) {
            if (r & k) continue;
            float send = (l & k) ? v[r] : v[r | k];
            float recv = __shfl_xor_sync(0xffffffffu, send, k);
            if (l & k) v[r] = recv; else v[r | k] = recv;
        }
    }
    int xo = blockIdx.y * TILE + l;
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        int yo = blockIdx.x * TILE + k;
        if (xo < n && yo < n) out[(size_t)yo * n + xo] = v[k];
    }
}
