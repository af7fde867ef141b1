// wrong: [wrong output] coalesced, but every block reads the first tile (blockIdx.x left out), so only the start of `out` is right.
// caught by: correct
// on: cpu

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    for (int k = 0; k < 16; ++k) {
        long long i = (long long)k * blockDim.x + threadIdx.x;
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
