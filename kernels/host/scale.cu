// out[i] = 3 * in[i] + 1 over n words, each block over a tile of PER * blockDim.x of them.
// Whether `in` is device memory, mapped host memory or managed memory is the lesson's
// choice (`memory:` on the buffer): the kernel is the same, only the pointer differs.
// CHUNKED 0: in round k the block's threads read the k-th blockDim.x words of the tile,
// neighbouring lanes neighbouring words (coalesced). CHUNKED 1: each thread takes a run of
// PER words of its own, so a warp's 32 lanes read 32 words PER * 4 bytes apart.

#ifndef PER
#define PER 16
#endif
#ifndef CHUNKED
#define CHUNKED 0
#endif

extern "C" __global__ void scale(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                 int n)
{
    long long tile = (long long)blockIdx.x * blockDim.x * PER;
    for (int k = 0; k < PER; ++k) {
#if CHUNKED
        long long i = tile + (long long)threadIdx.x * PER + k;
#else
        long long i = tile + (long long)k * blockDim.x + threadIdx.x;
#endif
        if (i < n) {
            out[i] = 3u * in[i] + 1u;
        }
    }
}
