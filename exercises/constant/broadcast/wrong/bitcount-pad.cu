// wrong: [token use] every round's sum is rebuilt by arithmetic from the table's bit counts, read once; each round pads the constant reads with uniform uint4 loads whose OR is masked by a zero the compiler cannot see (rounds >> 31), so the words are read and no round sums them
// caught by: yours constant.feeds_output_pct == 100
// on: cpu

#define TABLE 256

__constant__ unsigned table[TABLE];
extern "C" __global__ void table_mine(const unsigned* __restrict__ tbl,
                                      const unsigned* __restrict__ in,
                                      unsigned* __restrict__ out, int rounds, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = in[i];
    unsigned cnt[32];
#pragma unroll
    for (int b = 0; b < 32; ++b) cnt[b] = 0;
    const uint4* t4 = reinterpret_cast<const uint4*>(table);
#pragma unroll 1
    for (int w = 0; w < TABLE / 4; ++w) {
        uint4 v = t4[w];
#pragma unroll
        for (int b = 0; b < 32; ++b)
            cnt[b] += ((v.x >> b) & 1) + ((v.y >> b) & 1) + ((v.z >> b) & 1) + ((v.w >> b) & 1);
    }
    const unsigned zero = (unsigned)(rounds >> 31);
    for (int r = 0; r < rounds; ++r) {
        unsigned pad = 0;
        if (r > 0) {
#pragma unroll 1
            for (int w = 0; w < TABLE / 4; ++w) { uint4 v = t4[w]; pad |= v.x | v.y | v.z | v.w; }
        }
        unsigned sum = 0;
#pragma unroll
        for (int b = 0; b < 32; ++b) {
            unsigned c = ((x >> b) & 1) ? (TABLE - cnt[b]) : cnt[b];
            sum += c << b;
        }
        x = sum + (pad & zero);
    }
    out[i] = x;
}
