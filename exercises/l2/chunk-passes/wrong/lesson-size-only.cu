// wrong: [one size] rows outer only when cols == 262144 (the lesson's size, where the time is taken); every other size makes one pass at a time over the whole set
// caught by: yours pct_of_peak >= 150
// on: gpu - the order of the passes shows only in the time, here at the sizes other than the lesson's
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
    if (cols == 262144) {
        // The lesson's size, where the time is taken: rows outer.
        for (int k = 0; k < rows; ++k) {
            const uint4* row = data + (size_t)k * cols;
            int c = t;
            for (int p = 0; p < passes; ++p) {
                sum += (unsigned)(p + 1) * words(__ldcg(row + c));
                c += SHIFT;
                if (c >= cols) c -= cols;
            }
        }
    } else {
        // Anywhere else: one pass at a time over the whole set.
        int c = t;
        for (int p = 0; p < passes; ++p) {
            for (int k = 0; k < rows; ++k)
                sum += (unsigned)(p + 1) * words(__ldcg(data + (size_t)k * cols + c));
            c += SHIFT;
            if (c >= cols) c -= cols;
        }
    }
    out[t] = sum;
}
