// right: each thread takes 4 neighbouring particles and moves their x values as one
// float4: lanes 16 bytes apart, each reading 16 bytes, so a warp's request is 512
// contiguous bytes, every one used. Only the thread that holds the last, incomplete
// group of four goes one float at a time.

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;  // the x values are the first n floats: xs + first is 16-byte aligned
    unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    if (first + PER_THREAD <= n) {
        float4 x = *reinterpret_cast<const float4*>(xs + first);
        x.x += dx; x.y += dx; x.z += dx; x.w += dx;
        *reinterpret_cast<float4*>(out + first) = x;
    } else {
        for (unsigned i = first; i < n; ++i) out[i] = xs[i] + dx;
    }
}
