// right: the tile and its halo staged with cp.async, 4 bytes a lane, zero-filled past either end of the array, waited for, then one barrier before the sums: every global read goes into the tile (global.staged_pct counts a copy as staged) and the windows read every word from it, with fewer shared requests than the solution's since the copies' writes are not shared store requests.
__device__ __forceinline__ void copy4(float* dst, const float* src, bool inside)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    int bytes = inside ? 4 : 0;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" :: "r"(d), "l"(src), "r"(bytes) : "memory");
}
extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    __shared__ float tile[BLOCK + 2 * R];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    copy4(&tile[t + R], in + (i < n ? i : 0), i < n);
    if (t < R) {
        int l = i - R, h = i + BLOCK;
        copy4(&tile[t], in + (l >= 0 && l < n ? l : 0), l >= 0 && l < n);
        copy4(&tile[t + BLOCK + R], in + (h < n ? h : 0), h < n);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) sum += tile[t + R + j];
    if (i < n) out[i] = sum;
}
