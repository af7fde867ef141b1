// wrong: [token use] unrolls the word loop only for the first 16 words of each round, as the hints say; the other 16 stay in a loop whose index is known only at run time, so the whole array stays in local memory
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
#pragma unroll
        for (int j = 0; j < WORDS / 2; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
#pragma unroll 1
        for (int j = WORDS / 2; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
