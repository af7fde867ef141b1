// wrong: [block race] no barrier at all: the tile is staged so that each warp reads only words it or the warp before it stored, every tile store and load `.relaxed` (strong, so a race check that pairs plain accesses only would see nothing); on a GPU warp k can read warp k-1's words before they are written, and on the interpreter run first to last it cannot.
// caught by: race
// on: cpu
__device__ __forceinline__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void st_rlx(float* p, float v)
{ asm volatile("st.relaxed.cta.shared.f32 [%0], %1;" :: "r"(sa(p)), "f"(v) : "memory"); }
__device__ __forceinline__ float ld_rlx(const float* p)
{ float v; asm volatile("ld.relaxed.cta.shared.f32 %0, [%1];" : "=f"(v) : "r"(sa(p)) : "memory"); return v; }
__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    // tile[x] = in[base - R + x]; warp 0 stages tile[0..47], warp k >= 1 tile[16+32k ..].
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    const int i = base + t;
    const int w = t >> 5, l = t & 31;
    if (w == 0) {
        st_rlx(&tile[l], at(in, base - R + l, n));
        if (l < 2 * R) st_rlx(&tile[32 + l], at(in, base - R + 32 + l, n));
    } else {
        int x = 2 * R + 32 * w + l;
        st_rlx(&tile[x], at(in, base - R + x, n));
    }
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += ld_rlx(&tile[t + R + j]);
    if (i < n) out[i] = sum;
}
