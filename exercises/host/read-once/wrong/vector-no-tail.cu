// wrong: [one size] reads four words a lane as one uint4 and stores four, but only where all four lie inside the buffer: right when n is a multiple of 4, the last n % 4 words never written otherwise
// caught by: correct
// on: cpu
extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    // A tile of 16 * blockDim.x words is 4 * blockDim.x uint4s: four rounds of one each.
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    uint4* out4 = reinterpret_cast<uint4*>(out);
    long long tile4 = (long long)blockIdx.x * blockDim.x * 4;
    for (int k = 0; k < 4; ++k) {
        long long v = tile4 + (long long)k * blockDim.x + threadIdx.x;
        if (4 * v + 3 < n) {
            uint4 x = in4[v];
            out4[v] = make_uint4(3u * x.x + 1u, 3u * x.y + 1u, 3u * x.z + 1u, 3u * x.w + 1u);
        }
    }
}
