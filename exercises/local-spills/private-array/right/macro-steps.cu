// The 32 updates of a round written out one by one (by a macro): every index is a constant
// in the source itself, so no unrolling is needed for the words to live in registers.

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

#define STEP(j) w[j] = stir(w[j], w[((j) + 1) % WORDS])
    for (int r = 0; r < rounds; ++r) {
        STEP(0);
        STEP(1);
        STEP(2);
        STEP(3);
        STEP(4);
        STEP(5);
        STEP(6);
        STEP(7);
        STEP(8);
        STEP(9);
        STEP(10);
        STEP(11);
        STEP(12);
        STEP(13);
        STEP(14);
        STEP(15);
        STEP(16);
        STEP(17);
        STEP(18);
        STEP(19);
        STEP(20);
        STEP(21);
        STEP(22);
        STEP(23);
        STEP(24);
        STEP(25);
        STEP(26);
        STEP(27);
        STEP(28);
        STEP(29);
        STEP(30);
        STEP(31);
    }
#undef STEP

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
