// wrong: [off the point] splits the loop into rounds and words, as the hints say, but keeps the inner loop rolled, so the index into the array is still known only at run time
// caught by: yours stack_frame == 0
// on: cpu

#define WORDS 32

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

extern "C" __global__ void stir_mine(const unsigned* __restrict__ in,
                                     unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];

    unsigned w[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j] = x + (unsigned)j * 16777619u;

    for (int r = 0; r < rounds; ++r) {
#pragma unroll 1
        for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
