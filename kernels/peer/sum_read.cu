// Reading memory that lives on another GPU. Each block sums its own contiguous chunk of
// `src` (blockDim.x * PER uint4 words) and writes the sum to out[blockIdx.x]. Where `src`
// lives is the lesson's choice (`gpu: 1` puts a buffer on the peer GPU); the kernel is the
// same: with peer access enabled, a peer's address is an ordinary global address here.
//   COALESCED 1: at step k, thread t reads word t + k * blockDim.x of the chunk: a warp
//                asks for 512 contiguous bytes.
//   COALESCED 0: thread t reads words t * PER + k: a warp's 32 lanes are PER * 16 bytes
//                apart, each in a different 32-byte sector.
// Both read every word of the chunk once, and integer sums do not depend on order, so both
// write the same sums.

#ifndef COALESCED
#define COALESCED 1
#endif
#ifndef PER
#define PER 16
#endif

extern "C" __global__ void sum_read(const uint4* __restrict__ src, unsigned* __restrict__ out)
{
    __shared__ unsigned partial[32];
    const unsigned t = threadIdx.x;
    const uint4* chunk = src + (size_t)blockIdx.x * blockDim.x * PER;
    unsigned sum = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
#if COALESCED
        uint4 v = chunk[t + k * blockDim.x];
#else
        uint4 v = chunk[t * PER + k];
#endif
        sum += v.x + v.y + v.z + v.w;
    }
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((t & 31) == 0) partial[t >> 5] = sum;
    __syncthreads();
    if (t < 32) {
        sum = t < blockDim.x / 32 ? partial[t] : 0;
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
        if (t == 0) out[blockIdx.x] = sum;
    }
}
