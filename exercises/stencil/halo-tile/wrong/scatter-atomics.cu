// wrong: [off the point] keeps no input tile: each thread adds its input into the 17 window sums it belongs to by shared atomics (the edge threads add the halo), so the shared requests match the solution's and each feeds the output, global memory read once
// caught by: yours atomic.updates == 0
// on: cpu
extern "C" __global__ void stencil_tile(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float acc[BLOCK];
    const int t = threadIdx.x;
    const int base = blockIdx.x * BLOCK;
    const int i = base + t;
    acc[t] = 0.0f;
    __syncthreads();
    float v = (i < n) ? in[i] : 0.0f;
    for (int o = t - R; o <= t + R; ++o)
        if (o >= 0 && o < BLOCK) atomicAdd(&acc[o], v);
    if (t < 2 * R) {
        int q = t < R ? t - R : BLOCK + (t - R);           // halo input's place from base
        int g = base + q;
        float h = (g >= 0 && g < n) ? in[g] : 0.0f;
        for (int o = q - R; o <= q + R; ++o)
            if (o >= 0 && o < BLOCK) atomicAdd(&acc[o], h);
    }
    __syncthreads();
    if (i < n) out[i] = acc[t];
}
