// wrong: [wrong output] reads the set as if each thread's elements lay in one contiguous column (data[c * rows + k]): a warp's 32 lanes land rows apart, one sector each, and the sum is not the one asked for
// caught by: yours global.sectors_per_request at most 1.01x solution
// on: cpu
// Several passes over one large set. The set is `rows` rows of `cols` uint4s (row k holds
// data[k * cols ...]); thread t < cols produces out[t]. Pass p reads, in every row, the
// element SHIFT * p columns to the right of the thread's own (wrapping at cols), adds up
// its four words and weighs them by p + 1:
//
//   out[t] = sum over p < passes, k < rows of (p + 1) * words(data[k * cols + (t + SHIFT * p) % cols])
//
// One pass at a time would read the whole set `passes` times from device memory: the set
// is larger than the L2, so each pass finds none of it there. Here the rows are the outer
// loop: the passes over one row follow each other while that row (and its neighbours,
// read by other blocks at about the same time) is still in the L2.

#define SHIFT 256

__device__ __forceinline__ unsigned words(uint4 v)
{
    return v.x + v.y + v.z + v.w;
}

extern "C" __global__ void sweep_passes(const uint4* __restrict__ data,
                                        unsigned* __restrict__ out, int cols, int rows,
                                        int passes)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= cols) return;
    unsigned sum = 0;
    for (int k = 0; k < rows; ++k) {
        int c = t;
        for (int p = 0; p < passes; ++p) {
            sum += (unsigned)(p + 1) * words(__ldcg(data + (size_t)c * rows + k));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    out[t] = sum;
}
