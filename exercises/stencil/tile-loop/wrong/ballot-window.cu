// wrong: [off the point] no shared tile and no barrier: each warp walks four neighbouring 32-word chunks and spreads each to its lanes as 32 ballots, a bit plane each, and every lane sums its window from the planes
// caught by: yours shuffles == 0
// on: cpu

#define TILES 4

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_loop(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    const int lane = threadIdx.x & 31;
    const int w = threadIdx.x >> 5;
    const int first = blockIdx.x * TILES * BLOCK + w * 32 * TILES;
    unsigned P[32], Q[32];  // bit planes of the previous-and-current chunk, and of the next
    {
        const unsigned left = __float_as_uint((lane >= 32 - R) ? at(in, first - 32 + lane, n) : 0.0f);
        const unsigned cur = __float_as_uint(at(in, first + lane, n));
#pragma unroll
        for (int b = 0; b < 32; ++b) {
            P[b] = __ballot_sync(0xffffffffu, (left >> b) & 1);
            Q[b] = __ballot_sync(0xffffffffu, (cur >> b) & 1);
        }
    }
#pragma unroll 1
    for (int k = 0; k < TILES; ++k) {
        const int base = first + k * 32;
        unsigned long long plane[32];
        const unsigned nx = __float_as_uint((k + 1 < TILES || lane < R) ? at(in, base + 32 + lane, n) : 0.0f);
#pragma unroll
        for (int b = 0; b < 32; ++b) {
            const unsigned nb = __ballot_sync(0xffffffffu, (nx >> b) & 1);
            // bits: 0..7 previous chunk's last 8, 8..39 this chunk, 40..47 next chunk's first 8
            plane[b] = (unsigned long long)(P[b] >> (32 - R)) | ((unsigned long long)Q[b] << R)
                     | ((unsigned long long)(nb & 0xffu) << (32 + R));
            P[b] = Q[b];
            Q[b] = nb;
        }
        float sum = 0.0f;
#pragma unroll 1
        for (int j = 0; j <= 2 * R; ++j) {
            unsigned v = 0;
#pragma unroll
            for (int b = 0; b < 32; ++b) v |= (unsigned)((plane[b] >> (lane + j)) & 1ull) << b;
            sum += __uint_as_float(v);
        }
        if (base + lane < n) out[base + lane] = sum;
    }
}
