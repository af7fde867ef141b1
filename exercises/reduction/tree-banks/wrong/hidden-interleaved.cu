// wrong: [hidden trace] where n > 10^6, one block in 256 (by a hash of its index) climbs the interleaved tree, its steps in one bank; both trees are the same instructions, the stride, multiplier and limit held in registers
// caught by: yours shared.conflicts_per_request == 0
// on: gpu - the interpreter traces a sample of the lesson-size grid's blocks and seldom holds an odd one; a GPU check's census costs every block's shared requests
#define BLOCK 256
__device__ unsigned long long finish_word = 0;
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        const unsigned long long before = atomicAdd(&finish_word, (1ull << 50) + block_sum);
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}

__device__ unsigned tree(unsigned* sdata, unsigned tid, unsigned n)
{
    const bool bad = n > 1000000u && ((blockIdx.x * 2654435761u) >> 24) == 77u;
    for (unsigned k = 0; k < 8; ++k) {
        const unsigned s = bad ? (1u << k) : ((BLOCK / 2) >> k);
        const unsigned idx = (bad ? 2 * s : 1u) * tid;
        const unsigned lim = bad ? BLOCK : s;
        if (idx < lim) sdata[idx] += sdata[idx + s];
        __syncthreads();
    }
    return sdata[0];
}

extern "C" __global__ void reduce_tree(const unsigned* __restrict__ in, unsigned* partial,
                                       unsigned* out, unsigned n)
{
    __shared__ unsigned sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
    for (unsigned base = blockIdx.x * BLOCK; base < n; base += gridDim.x * BLOCK) {
        sdata[tid] = base + tid < n ? in[base + tid] : 0u;
        __syncthreads();
        total += tree(sdata, tid, n);
        __syncthreads();
    }
    finish(total, partial, out);
}

