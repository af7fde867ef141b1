// Table reads. Each thread starts from x = in[i] and, `rounds` times, replaces x by the sum
// over every table entry t of (t ^ x). Each lane walks the whole table in an order set by
// its key. Unsigned sums wrap exactly, so the order of the terms does not change the
// result: every variant writes the same numbers, and only how many different entries a
// warp asks for in one step, and through which path, differs.

#ifndef PATH
#define PATH 0      // 0: the __constant__ table; 1: the same words in global memory, via __ldg
#endif
#ifndef OPERAND
#define OPERAND 0   // 1: every lane's key is 0, known when compiled (see below)
#endif

// Entries in the table. The lesson's `tbl` buffer holds exactly this many u32, and the
// worker checks that the symbol and the buffer have the same size before it launches.
#define TABLE 256

__constant__ unsigned table[TABLE];

// Where entry j sits, and how it is read: the two paths differ only here.
__device__ __forceinline__ const unsigned* entry_at(const unsigned* tbl, unsigned j)
{
#if PATH == 0
    return table + j;
#else
    return tbl + j;
#endif
}

__device__ __forceinline__ unsigned read(const unsigned* p)
{
#if PATH == 0
    return *p;
#else
    // The read-only data path: served by the L1 a line at a time, so lanes that want
    // words of the same 128-byte line share one fetch instead of waiting in turn.
    return __ldg(p);
#endif
}

// `lanes_per_key` neighbouring lanes share a key, so a warp holds 32 / lanes_per_key
// different keys: 32 / DISTINCT, from the lesson. It is an argument, not a define, so every
// variant compiles to the same code: with a constant 32 the compiler would see the key is 0
// and fold the uniform variant's addresses into its instructions, and the variants would
// then differ in more than the addresses their warps name.
extern "C" __global__ void table_sum(const unsigned* __restrict__ tbl,
                                     const unsigned* __restrict__ in,
                                     unsigned* __restrict__ out, int rounds,
                                     unsigned lanes_per_key)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#if OPERAND
    // The key is 0 and the loop below unrolls whole: the compiler knows every entry's
    // place. A constant whose place is known needs no load of each thread's: it sits in
    // the instruction that uses it (an operand c[bank][offset]), or the uniform datapath
    // reads it once for the warp (ULDC; for sm_90 ptxas reads two entries at a time).
    const unsigned key = 0;
    (void)lanes_per_key;
#else
    unsigned key = (threadIdx.x & 31) / lanes_per_key;
#endif
    unsigned x = in[i];
    for (int r = 0; r < rounds; ++r) {
        unsigned sum = 0;
        // Entry (c ^ key) + 32 m: as c runs over 0..31 and m over the table's blocks of 32,
        // a lane meets every entry once, and at each step the warp's lanes ask for DISTINCT
        // entries of one 128-byte block. The inner loop unrolls, so c ^ key is worked out
        // once per eight reads and each read is a fixed offset from it.
#if OPERAND
#pragma unroll
#else
#pragma unroll 1
#endif
        for (unsigned c = 0; c < 32; ++c) {
            const unsigned* p = entry_at(tbl, c ^ key);
#pragma unroll
            for (unsigned m = 0; m < TABLE / 32; ++m) sum += read(p + 32 * m) ^ x;
        }
        x = sum;
    }
    out[i] = x;
}
