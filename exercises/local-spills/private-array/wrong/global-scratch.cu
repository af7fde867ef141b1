// wrong: [off the point] keeps the flat loop and gives every thread 32 words of a global scratch array in place of the private one: no stack frame and no local traffic, but every update goes to global memory
// caught by: yours global.sectors at most 1.1x solution
// on: cpu
// Each thread stirs 32 private words, seeded from its input, for `rounds` rounds, and
// writes their XOR. The order of the updates is part of the result: word j is stirred
// with word j + 1 (wrapping at 32), j going 0, 1, ..., 31 in every round.

#define WORDS 32
#define MAX_N 1048576

// 32 words for every thread the lesson launches, word j of all threads side by side.
__device__ unsigned scratch[WORDS * MAX_N];

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

    unsigned* w = scratch + i;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j * MAX_N] = x + (unsigned)j * 16777619u;

    // One loop over every update of every round.
#pragma unroll 1
    for (int k = 0; k < rounds * WORDS; ++k) {
        int j = k % WORDS;
        w[j * MAX_N] = stir(w[j * MAX_N], w[((j + 1) % WORDS) * MAX_N]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j * MAX_N];
    out[i] = result;
}
