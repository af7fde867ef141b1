// wrong: [off the point] brings each block's data in with one bulk (TMA) copy, so no lane loads anything as the lesson asks
// caught by: bulk
// on: cpu
__device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void scale_mine(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                      int n)
{
    __shared__ alignas(16) unsigned tile[256 * 16];
    __shared__ alignas(8) unsigned long long bar;
    const long long first = (long long)blockIdx.x * blockDim.x * 16;
    const long long last = min((long long)n, first + (long long)blockDim.x * 16);
    const unsigned words = (unsigned)(last - first), bulkw = words & ~3u;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(smem(&bar)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (bulkw == 0) {
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(smem(&bar)) : "memory");
        } else {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n"
                         :: "r"(smem(&bar)), "r"(bulkw * 4) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                         "[%0], [%1], %2, [%3];\n"
                         :: "r"(smem(tile)), "l"(in + first), "r"(bulkw * 4), "r"(smem(&bar)) : "memory");
        }
    }
    unsigned ok = 0;
    while (!ok) {
        asm volatile("{\n\t.reg .pred %%wp;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 %%wp, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, %%wp;\n\t}\n"
                     : "=r"(ok) : "r"(smem(&bar)) : "memory");
    }
    for (unsigned w = threadIdx.x; w < words; w += blockDim.x) {
        unsigned v = w < bulkw ? tile[w] : in[first + w];
        out[first + w] = 3u * v + 1u;
    }
}
