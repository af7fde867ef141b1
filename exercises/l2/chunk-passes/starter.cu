// Several passes over one large set. The set is `rows` rows of `cols` uint4s (row k holds
// data[k * cols ...]); thread t < cols produces out[t]. Pass p reads, in every row, the
// element SHIFT * p columns to the right of the thread's own (wrapping at cols), adds up
// its four words and weighs them by p + 1:
//
//   out[t] = sum over p < passes, k < rows of (p + 1) * words(data[k * cols + (t + SHIFT * p) % cols])
//
// Write it so that a set larger than the L2 is not read from device memory once per pass.

#define SHIFT 256

__device__ __forceinline__ unsigned words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

extern "C" __global__ void sweep_passes(const uint4* __restrict__ data,
                                        unsigned* __restrict__ out, int cols, int rows,
                                        int passes)
{
    // Your kernel here.
}
