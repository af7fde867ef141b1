// wrong: [unchecked structure] unrolls the loops, then asks for eight blocks an SM with __launch_bounds__ and lets ptxas spill to shared memory: at 32 registers the words spill, and the spills sit in shared memory, not registers
// caught by: yours smem == 0
// on: cpu
// The same updates in the same order, as a loop over rounds around a fully unrolled loop
// over the words: every index into `w` is a constant once unrolled, so each word can live
// in a register of its own and nothing goes to local memory.

#define WORDS 32

__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

extern "C" __global__ void __launch_bounds__(256, 8) stir_mine(const unsigned* __restrict__ in,
                                     unsigned* __restrict__ out, int n, int rounds)
{
    // More blocks at once; what no longer fits in registers may go to shared memory.
    asm volatile(".pragma \"enable_smem_spilling\";");
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];

    unsigned w[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j] = x + (unsigned)j * 16777619u;

    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }

    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
