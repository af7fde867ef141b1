// wrong: [predictable input] takes the lesson's fill, word i holding i, and writes 3 * i + 1 without reading the host buffer at all: nothing crosses the link, and nothing of the input is used
// caught by: correct
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * (unsigned)i + 1u;
    }
}
