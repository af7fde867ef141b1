// wrong: [one size] float4 loads as a right answer makes them, but the tail is written for one particle left over: at n % 4 of 2 or 3 the particles before the last of the incomplete group are never moved
// caught by: correct
// on: cpu

#define PER_THREAD 4

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const float* xs = p;
    unsigned first = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    if (first + PER_THREAD <= n) {
        float4 x = *reinterpret_cast<const float4*>(xs + first);
        x.x += dx; x.y += dx; x.z += dx; x.w += dx;
        *reinterpret_cast<float4*>(out + first) = x;
    } else if (first < n) {
        out[n - 1] = xs[n - 1] + dx;  // "the one particle left over"
    }
}
