// wrong: [one size] the round loop unrolled for at most 16 rounds, each kept only while r < rounds: the words stay in registers, and every round past the 16th is left out
// caught by: correct
// on: cpu
// Each thread stirs 32 private words, seeded from its input, for `rounds` rounds, and
// writes their XOR. The order of the updates is part of the result: word j is stirred
// with word j + 1 (wrapping at 32), j going 0, 1, ..., 31 in every round.

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
    for (int r = 0; r < 16; ++r) {
        if (r < rounds) {
#pragma unroll
            for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
        }
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
