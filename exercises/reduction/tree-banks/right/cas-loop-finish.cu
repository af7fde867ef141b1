// right: the tree with sequential addressing; the finish adds (1 << 50) + the block's sum to the 64-bit finish word by the textbook atomicCAS loop (a plain first read, retried with the value returned).
#define BLOCK 256
__device__ unsigned long long finish_word = 0;
__device__ void finish(unsigned block_sum, unsigned* partial, unsigned* out)
{
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = block_sum;
        const unsigned long long add = (1ull << 50) + block_sum;
        unsigned long long old = finish_word, before;
        do { before = old; old = atomicCAS(&finish_word, before, before + add); } while (old != before);
        if ((before >> 50) == gridDim.x - 1) {
            atomicExch(out, (unsigned)(before + block_sum));
            atomicExch(&finish_word, 0ull);
        }
    }
}

__device__ unsigned tree(unsigned* sdata, unsigned tid)
{
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
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
        total += tree(sdata, tid);
        __syncthreads();
    }
    finish(total, partial, out);
}
