// wrong: [one size] a uint4 grid-stride sum whose tail drops the n % 4 words left over when they are two and n is past 5000 (a red team's): right at 4098, the only fixed size that left two once
// caught by: correct
// on: cpu
#define BLOCK 256
__device__ unsigned long long finish_word = 0;
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        const unsigned long long before = atomicAdd(&finish_word, (1ull << 50) + block_sum);
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}
extern "C" __global__ void reduce_any(const unsigned* __restrict__ in, unsigned* partial,
                                      unsigned* out, unsigned n)
{
    __shared__ unsigned ws[BLOCK / 32];
    unsigned total = 0;
    const unsigned q = n / 4;
    const uint4* v = reinterpret_cast<const uint4*>(in);
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < q; i += gridDim.x * BLOCK) {
        uint4 a = v[i]; total += a.x + a.y + a.z + a.w;
    }
    unsigned t = blockIdx.x * BLOCK + threadIdx.x;
    if (t < n % 4 && !(n % 4 == 2 && n > 5000)) total += in[4 * q + t];
    for (int o = 16; o; o >>= 1) total += __shfl_xor_sync(0xffffffffu, total, o);
    if ((threadIdx.x & 31) == 0) ws[threadIdx.x >> 5] = total;
    __syncthreads();
    unsigned s = 0;
    if (threadIdx.x < 32) {
        s = threadIdx.x < BLOCK / 32 ? ws[threadIdx.x] : 0u;
        for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    }
    finish(s, partial, out);
}
