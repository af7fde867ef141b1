// wrong: [one size] unrolls the rounds, the words in registers, only for the lesson's counts of rounds (16 on the interpreter, 256 on a GPU); for any other count it keeps the flat loop and picks each word by compare-and-select: no stack frame anywhere, the counts of the solution at every size, and its speed at the lesson's size alone
// caught by: yours faster than solution by >= 0.83x
// on: gpu - only a time tells the compare-and-select loop from the unrolled one, and the interpreter times nothing
#define WORDS 32
__device__ __forceinline__ unsigned stir(unsigned a, unsigned b) { return (a ^ (b >> 5)) * 2654435761u + b; }
extern "C" __global__ void stir_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned w[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j] = x + (unsigned)j * 16777619u;
    if (rounds == 16 || rounds == 256) {
#pragma unroll 1
        for (int r = 0; r < rounds; ++r) {
#pragma unroll
            for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
        }
    } else {
#pragma unroll 1
        for (int k = 0; k < rounds * WORDS; ++k) {
            int j = k % WORDS;
            unsigned a = 0, b = 0;
#pragma unroll
            for (int m = 0; m < WORDS; ++m) { if (m == j) a = w[m]; if (m == (j + 1) % WORDS) b = w[m]; }
            unsigned v = stir(a, b);
#pragma unroll
            for (int m = 0; m < WORDS; ++m) if (m == j) w[m] = v;
        }
    }
    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
