// wrong: [one size] coalesced at every size it can know of (the lesson's n and every fixed size, none above 1000003), the starter's runs at any other n
// caught by: yours global.pct_used >= 99
// on: gpu - at the size every check on a GPU draws afresh (drawn_size), which the CPU does not run: at every size the CPU checks the kernel is coalesced
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * 16;
    bool runs = n > 1000003 && n != 67108864;
    for (int k = 0; k < 16; ++k) {
        long long i = runs ? tile + (long long)threadIdx.x * 16 + k
                           : tile + (long long)k * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 3u * in[i] + 1u;
    }
}
