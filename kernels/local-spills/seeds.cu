// More ways of holding stir.cu's 32 words, each computing the very same function (each
// thread seeds 32 private words from in[i], stirs them `rounds` times and writes their XOR
// to out[i]), each showing one more fact about local memory on this GPU:
//   MODE 4 (lane-offset)  dynamic-index's array, but lane l keeps word j in slot
//                         (j + l) % 32: at each step the 32 lanes reach 32 different
//                         slots of their arrays, where dynamic-index's reach one.
//   MODE 5 (eight-each)   static-index's unrolled stir for ELEMS elements at once: 32 x
//                         ELEMS live words ask for more registers than a thread may have.
//   MODE 6 (smem-spill)   eight-each, letting ptxas spill to shared memory first
//                         (CUDA 13's `enable_smem_spilling` pragma).
//   MODE 7 (sin-*)        static-index, then SINS calls of sinf on arguments of size SIN_BIG
//                         or not (FAST: __sinf); the sines cannot change the result
//                         (see below), so the output is static-index's.

#ifndef MODE
#define MODE 4
#endif
#ifndef ELEMS
#define ELEMS 8
#endif
#ifndef SINS
#define SINS 1024
#endif
#ifndef SIN_BIG
#define SIN_BIG 0
#endif
#ifndef FAST
#define FAST 0
#endif

#define WORDS 32

// stir.cu's step and seed, so that every variant gets the very same bits.
__device__ __forceinline__ unsigned stir(unsigned a, unsigned b)
{
    return (a ^ (b >> 5)) * 2654435761u + b;
}

__device__ __forceinline__ unsigned seed(unsigned x, int j)
{
    return x + (unsigned)j * 16777619u;
}

// static-index's stir of one element: every index a constant, so the words are registers.
__device__ __forceinline__ unsigned stir_static(unsigned x, int rounds)
{
    unsigned w[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) w[j] = seed(x, j);
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < WORDS; ++j) w[j] = stir(w[j], w[(j + 1) % WORDS]);
    }
    unsigned result = 0;
#pragma unroll
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    return result;
}

#if MODE == 4
extern "C" __global__ void stir_lane_offset(const unsigned* __restrict__ in,
                                            unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = in[i];
    // The slot of word j: the same permutation of the array in every round, so the words
    // and the steps are dynamic-index's; only where each word sits differs by lane.
    const unsigned lane = threadIdx.x % 32;
    unsigned w[WORDS];
#pragma unroll 1
    for (int j = 0; j < WORDS; ++j) w[(j + lane) % WORDS] = seed(x, j);
#pragma unroll 1
    for (int k = 0; k < rounds * WORDS; ++k) {
        const int j = k & (WORDS - 1);
        const unsigned here = (j + lane) % WORDS, next = (j + 1 + lane) % WORDS;
        w[here] = stir(w[here], w[next]);
    }
    unsigned result = 0;
#pragma unroll 1
    for (int j = 0; j < WORDS; ++j) result ^= w[j];
    out[i] = result;
}
#endif

#if MODE == 5 || MODE == 6
// Thread t stirs elements t, t + n / ELEMS, ...: all ELEMS x 32 words live at once, each
// element's steps in stir.cu's order. __launch_bounds__ tells ptxas that blocks have at
// most 256 threads, which a spill to shared memory needs to size itself.
extern "C" __global__ void __launch_bounds__(256)
    stir_many(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, int rounds)
{
#if MODE == 6
    // Spill to shared memory before local; what does not fit still goes to local.
    asm volatile(".pragma \"enable_smem_spilling\";");
#endif
    const int per = n / ELEMS;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= per) return;
    unsigned w[ELEMS][WORDS];
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) {
        const unsigned x = in[t + e * per];
#pragma unroll
        for (int j = 0; j < WORDS; ++j) w[e][j] = seed(x, j);
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < WORDS; ++j)
#pragma unroll
            for (int e = 0; e < ELEMS; ++e) w[e][j] = stir(w[e][j], w[e][(j + 1) % WORDS]);
    }
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) {
        unsigned result = 0;
#pragma unroll
        for (int j = 0; j < WORDS; ++j) result ^= w[e][j];
        out[t + e * per] = result;
    }
}
#endif

#if MODE == 7
// The argument of the k-th sine: a float in [0, 3) when SIN_BIG is 0, past a million when
// it is 1. sinf reduces a large argument modulo pi/2 with many more bits of pi than a
// small one needs, a slower path the compiler builds with an array in local memory.
__device__ __forceinline__ float argument(unsigned x, int k)
{
    const float f = (float)((x + (unsigned)k * 40503u) & 0xffffu) * (3.0f / 65536.0f);
#if SIN_BIG
    return 1.0e6f + f * 1.0e5f;
#else
    return f;
#endif
}

extern "C" __global__ void stir_sines(const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned x = in[i];
    float acc = 0.0f;
    for (int k = 0; k < SINS; ++k) {
#if FAST
        acc += __sinf(argument(x, k));
#else
        acc += sinf(argument(x, k));
#endif
    }
    // Each sine lies in [-1, 1], so |acc| <= SINS and this never flips a bit; the compiler
    // cannot know that, so it must compute every sine.
    const unsigned flip = fabsf(acc) > 2.0f * SINS ? 1u : 0u;
    out[i] = stir_static(x, rounds) ^ flip;
}
#endif
