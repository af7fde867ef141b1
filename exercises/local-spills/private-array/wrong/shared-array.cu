// wrong: [unchecked structure] keeps the flat loop and moves the array to shared memory, one column of 32 words per thread (32 KiB a block): no stack frame and no local traffic, but the words live in shared memory, not registers
// caught by: yours smem == 0
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

    // Word j of this thread in column threadIdx.x: the 32 lanes of a warp read 32 banks.
    __shared__ unsigned ws[WORDS][256];
    const int t = threadIdx.x;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) ws[j][t] = x + (unsigned)j * 16777619u;

    // One loop over every update of every round.
#pragma unroll 1
    for (int k = 0; k < rounds * WORDS; ++k) {
        int j = k % WORDS;
        ws[j][t] = stir(ws[j][t], ws[(j + 1) % WORDS][t]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= ws[j][t];
    out[i] = result;
}
