// wrong: [block race] the first warp alone stages the whole padded 32 x 32 square (32 coalesced row loads) and no barrier follows; the tile's stores and loads are `.relaxed`, strong but ordered by nothing, and on a GPU the other warps write out a square still being filled.
// caught by: race
// on: cpu
#define TILE 32
__device__ __forceinline__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void transpose_mine(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    __shared__ float tile[TILE][TILE + 1];

    int x = blockIdx.x * TILE + threadIdx.x;
    if (threadIdx.y == 0)
        for (int dy = 0; dy < TILE; ++dy) {
            int y = blockIdx.y * TILE + dy;
            if (x < n && y < n)
                asm volatile("st.relaxed.cta.shared.f32 [%0], %1;" :: "r"(sa(&tile[dy][threadIdx.x])), "f"(in[(size_t)y * n + x]) : "memory");
        }

    x = blockIdx.y * TILE + threadIdx.x;
    for (int dy = 0; dy < TILE; dy += 8) {
        int y = blockIdx.x * TILE + threadIdx.y + dy;
        if (x < n && y < n) {
            float v;
            asm volatile("ld.relaxed.cta.shared.f32 %0, [%1];" : "=f"(v) : "r"(sa(&tile[threadIdx.x][threadIdx.y + dy])) : "memory");
            out[(size_t)y * n + x] = v;
        }
    }
}
