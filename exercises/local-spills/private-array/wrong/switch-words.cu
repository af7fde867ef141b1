// wrong: [slow-variant timing] keeps the flat loop and holds the words in 32 named variables, picking the one to stir with a switch: registers and no stack frame, but every update pays for the jump, far slower than unrolled loops
// caught by: yours faster than solution by >= 0.83x
// on: gpu - registers, stack frame and traffic are the solution's; only the time shows the switch
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

    // 32 named words: no array, so nothing for the compiler to put in local memory.
    unsigned w0 = x + 0u * 16777619u, w1 = x + 1u * 16777619u, w2 = x + 2u * 16777619u, w3 = x + 3u * 16777619u;
    unsigned w4 = x + 4u * 16777619u, w5 = x + 5u * 16777619u, w6 = x + 6u * 16777619u, w7 = x + 7u * 16777619u;
    unsigned w8 = x + 8u * 16777619u, w9 = x + 9u * 16777619u, w10 = x + 10u * 16777619u, w11 = x + 11u * 16777619u;
    unsigned w12 = x + 12u * 16777619u, w13 = x + 13u * 16777619u, w14 = x + 14u * 16777619u, w15 = x + 15u * 16777619u;
    unsigned w16 = x + 16u * 16777619u, w17 = x + 17u * 16777619u, w18 = x + 18u * 16777619u, w19 = x + 19u * 16777619u;
    unsigned w20 = x + 20u * 16777619u, w21 = x + 21u * 16777619u, w22 = x + 22u * 16777619u, w23 = x + 23u * 16777619u;
    unsigned w24 = x + 24u * 16777619u, w25 = x + 25u * 16777619u, w26 = x + 26u * 16777619u, w27 = x + 27u * 16777619u;
    unsigned w28 = x + 28u * 16777619u, w29 = x + 29u * 16777619u, w30 = x + 30u * 16777619u, w31 = x + 31u * 16777619u;

    // One loop over every update of every round.
#pragma unroll 1
    for (int k = 0; k < rounds * WORDS; ++k) {
        // The word to stir, picked by a switch: every case names its words.
        switch (k % WORDS) {
        case 0: w0 = stir(w0, w1); break;
        case 1: w1 = stir(w1, w2); break;
        case 2: w2 = stir(w2, w3); break;
        case 3: w3 = stir(w3, w4); break;
        case 4: w4 = stir(w4, w5); break;
        case 5: w5 = stir(w5, w6); break;
        case 6: w6 = stir(w6, w7); break;
        case 7: w7 = stir(w7, w8); break;
        case 8: w8 = stir(w8, w9); break;
        case 9: w9 = stir(w9, w10); break;
        case 10: w10 = stir(w10, w11); break;
        case 11: w11 = stir(w11, w12); break;
        case 12: w12 = stir(w12, w13); break;
        case 13: w13 = stir(w13, w14); break;
        case 14: w14 = stir(w14, w15); break;
        case 15: w15 = stir(w15, w16); break;
        case 16: w16 = stir(w16, w17); break;
        case 17: w17 = stir(w17, w18); break;
        case 18: w18 = stir(w18, w19); break;
        case 19: w19 = stir(w19, w20); break;
        case 20: w20 = stir(w20, w21); break;
        case 21: w21 = stir(w21, w22); break;
        case 22: w22 = stir(w22, w23); break;
        case 23: w23 = stir(w23, w24); break;
        case 24: w24 = stir(w24, w25); break;
        case 25: w25 = stir(w25, w26); break;
        case 26: w26 = stir(w26, w27); break;
        case 27: w27 = stir(w27, w28); break;
        case 28: w28 = stir(w28, w29); break;
        case 29: w29 = stir(w29, w30); break;
        case 30: w30 = stir(w30, w31); break;
        case 31: w31 = stir(w31, w0); break;
        }
    }

    const unsigned result = w0 ^ w1 ^ w2 ^ w3 ^ w4 ^ w5 ^ w6 ^ w7 ^ w8 ^ w9 ^ w10 ^ w11 ^ w12 ^ w13 ^ w14 ^ w15
        ^ w16 ^ w17 ^ w18 ^ w19 ^ w20 ^ w21 ^ w22 ^ w23 ^ w24 ^ w25 ^ w26 ^ w27 ^ w28 ^ w29 ^ w30 ^ w31;
    out[i] = result;
}
