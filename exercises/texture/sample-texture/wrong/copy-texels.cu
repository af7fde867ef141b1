// wrong: [off the point] leaves the texture alone and brings each lane's four texels into shared memory with 4-byte cp.async copies, then blends them from there: no load request is made, every texel still comes down a column of the buffer a sector per lane
// caught by: yours copy.global_requests == 0
// on: cpu
// One output per thread: out[r * n + c] is the image sampled bilinearly at the point
// (x, y) = (r + FX, c + FY) in texel units (texel i covers [i, i + 1)), with points outside
// the image taking the nearest edge texel.
#define FX (-1.7f)
#define FY (1.3f)

__device__ int clampi(int i, int n) { return min(max(i, 0), n - 1); }

__device__ __forceinline__ void cp4(float* s, const float* g)
{
    unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(g));
}

extern "C" __global__ void sample_mine(const float* __restrict__ in, cudaTextureObject_t img,
                                       float* __restrict__ out, int n)
{
    __shared__ float s[4][256];
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    int t = threadIdx.x;
    if (c >= n || r >= n) return;
    float x = r + FX, y = c + FY;
    int i = (int)floorf(x), j = (int)floorf(y);
    float a = x - i, b = y - j;
    int i0 = clampi(i, n), i1 = clampi(i + 1, n), j0 = clampi(j, n), j1 = clampi(j + 1, n);
    cp4(&s[0][t], in + (size_t)j0 * n + i0);
    cp4(&s[1][t], in + (size_t)j0 * n + i1);
    cp4(&s[2][t], in + (size_t)j1 * n + i0);
    cp4(&s[3][t], in + (size_t)j1 * n + i1);
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    float t00 = s[0][t], t10 = s[1][t], t01 = s[2][t], t11 = s[3][t];
    float top = t00 + a * (t10 - t00);
    float bot = t01 + a * (t11 - t01);
    out[(size_t)r * n + c] = top + b * (bot - top);
}
