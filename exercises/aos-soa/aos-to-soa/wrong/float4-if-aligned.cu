// wrong: [one size] each thread takes 4 neighbouring particles: one float4 of x values when n is a multiple of 4, else four single floats, whose lanes are then 16 bytes apart and use a quarter of every sector.
// caught by: yours global.pct_used >= 98
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    if (n % 4 == 0) {
        // 16 bytes a lane, the lanes side by side: 512 bytes a request, all of them used.
        if (first < n) {
            float4 x = *reinterpret_cast<const float4*>(xs + first);
            x.x += dx; x.y += dx; x.z += dx; x.w += dx;
            *reinterpret_cast<float4*>(out + first) = x;
        }
        return;
    }
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k;
        if (i < n) out[i] = xs[i] + dx;
    }
}
