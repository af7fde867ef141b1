// wrong: [hidden trace] unrolls the loops in every block but the last, which keeps the flat loop "to be safe at the edge": the local traffic is all in a block a one-block trace never sees
// caught by: yours stack_frame == 0
// on: cpu
// The same updates in the same order, as a loop over rounds around a fully unrolled loop
// over the words: every index into `w` is a constant once unrolled, so each word can live
// in a register of its own and nothing goes to local memory.

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

    if (blockIdx.x + 1 < gridDim.x) {
        for (int r = 0; r < rounds; ++r) {
#pragma unroll
            for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
        }
    } else {
        // The last block, which may be part-filled: the original loop.
#pragma unroll 1
        for (int k = 0; k < rounds * WORDS; ++k) {
            int j = k % WORDS;
            w[j] = stir(w[j], w[(j + 1) % WORDS]);
        }
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
