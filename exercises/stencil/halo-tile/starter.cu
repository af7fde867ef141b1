// out[i] = in[i - R] + ... + in[i + R]: the sum of the 2R + 1 inputs around i, inputs past
// either end of the array counting as zero. R and BLOCK come from the lesson (8 and 256).
// One thread per output, blocks of BLOCK threads; n need not be a multiple of BLOCK.
//
// Write it so that global memory sees each input about once: stage the block's inputs,
// and the R on each side that its windows reach, in shared memory, and sum from there.

extern "C" __global__ void stencil_tile(const float* __restrict__ in,
                                        float* __restrict__ out, int n)
{
}
