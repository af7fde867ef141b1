// wrong: [wrong output] puts the loop over words outside the loop over rounds: constant indices, no stack frame, but each word is stirred all its rounds at once, in another order, and the output changes
// caught by: correct
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

#pragma unroll
    for (int j = 0; j < WORDS; ++j) {
        for (int r = 0; r < rounds; ++r) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
