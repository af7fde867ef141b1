// wrong: [off the point] unrolls the flat loop by 32, counting on each copy of its body having a constant j: the compiler cannot prove the trip count a multiple of 32 and keeps a loop for the rest, whose j is known only at run time, so the array stays in local memory
// caught by: yours stack_frame == 0
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

    // One loop over every update of every round; unrolled by 32, each copy is one j.
#pragma unroll 32
    for (int k = 0; k < rounds * WORDS; ++k) {
        int j = k % WORDS;
        w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
