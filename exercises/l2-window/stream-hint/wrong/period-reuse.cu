// wrong: [predictable input] finds the table's period at the checked size and reads each element once, weighted, with no cache hint
// caught by: yours global.sectors at least 0.95x solution
// on: cpu
extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= (unsigned)threads) return;
    unsigned sum = 0;
    for (int s = 0; s < steps; ++s) {
        uint4 c = __ldcg(cold + (size_t)(2 * s) * threads + tid);
        uint4 d = __ldcg(cold + (size_t)(2 * s + 1) * threads + tid);
        sum += c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w;
    }
    const unsigned T = (unsigned)threads;
    if (T <= hot_n && hot_n % T == 0 && hot_n / T < (unsigned)steps) {
        const unsigned period = hot_n / T;
        for (unsigned j = 0; j < period; ++j) {
            uint4 t = __ldcg(hot + tid + j * T);
            unsigned times = steps / period + (j < steps % period ? 1u : 0u);
            sum += times * (t.x + t.y + t.z + t.w);
        }
    } else {
        unsigned h = tid % hot_n;
        for (int s = 0; s < steps; ++s) {
            uint4 t = __ldcg(hot + h);
            sum += t.x + t.y + t.z + t.w;
            h = (unsigned)(((unsigned long long)h + T) % hot_n);
        }
    }
    out[tid] = sum;
}
