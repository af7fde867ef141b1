// wrong: [off the point] coalesced, but reads every word twice through a volatile pointer (3 * x as x + 2 * x, each load its own): half again the sectors, each crossing the link again.
// caught by: yours global.sectors at most 1.01x solution
// on: cpu

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    const volatile unsigned* v = in;
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    for (int k = 0; k < 16; ++k) {
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) {
            unsigned a = v[i];
            unsigned b = v[i];
            out[i] = a + 2u * b + 1u;
        }
    }
}
