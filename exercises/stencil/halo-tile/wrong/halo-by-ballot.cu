// wrong: [off the point] the halo never enters the tile: the edge warps read it into registers and hand it to the lanes that need it as 32 ballots, a bit plane each, every other window summed from the tile
// caught by: yours shuffles == 0
// on: cpu
// out[i] = in[i - R] + ... + in[i + R], inputs past either end counting as zero, one thread
// per output. The block stages its BLOCK inputs and R more on each side (the halo) in a
// shared tile, waits until every thread has written its part, and sums its window there.

__device__ __forceinline__ float at(const float* in, int i, int n)
{
    return (i >= 0 && i < n) ? in[i] : 0.0f;
}

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
    // Only the block's own words are staged; the halo is read by lanes 0..7 and 24..31 of
    // the edge warps once each (one request a side) and handed on by ballots.
    __shared__ float tile[BLOCK + 2 * R];
    const int t = threadIdx.x;
    const int i = blockIdx.x * BLOCK + t;
    const int lane = t & 31;
    tile[t + R] = at(in, i, n);
    float h = 0.0f;
    if (t < 32 && lane < R) h = at(in, i - R, n);
    if (t >= BLOCK - 32 && lane >= 32 - R) h = at(in, i + R, n);
    __syncthreads();
    // the halo words go round the warp as 32 ballots, one a bit plane
    unsigned P[32];
    const unsigned hb = __float_as_uint(h);
#pragma unroll
    for (int b = 0; b < 32; ++b) P[b] = __ballot_sync(0xffffffffu, (hb >> b) & 1u);
    float sum = 0.0f;
#pragma unroll
    for (int j = -R; j <= R; ++j) {
        const int k = t + j;
        const int src = j < 0 ? (lane + j + R) & 31 : (lane + j - R) & 31;
        unsigned hv_bits = 0;
#pragma unroll
        for (int b = 0; b < 32; ++b) hv_bits |= ((P[b] >> src) & 1u) << b;
        const float hv = __uint_as_float(hv_bits);
        sum += (k < 0 || k >= BLOCK) ? hv : tile[k + R];
    }
    if (i < n) out[i] = sum;
}
