// A shared tile read down its columns. Each block of 32 x 32 threads stores a 32 x 32
// tile of `in` row by row (lane x writes word x of a row: conflict-free), then lane x
// reads row x of column y, which sits at word x * (32 + PAD) + y. With PAD=0 every row
// is 32 words, so all 32 lanes of a warp ask one bank for 32 different words: 32
// wavefronts a request. -D PAD=1 moves each row one bank over: one wavefront.
//   gpulab try examples/try/shared_read.cu -D PAD=0 -D PAD=1
//
// gpulab: n=1<<22 cpu.n=1<<13 grid=n/1024 block=32,32
// gpulab: in:f32[n]=random out:f32[n] bytes=2*n*4

#ifndef PAD
#define PAD 0
#endif

extern "C" __global__ void column_read(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[32][32 + PAD];
    int base = blockIdx.x * 1024;
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[base + y * 32 + x];
    __syncthreads();
    // Each block's tile, transposed: out's row y is in's column y.
    out[base + y * 32 + x] = tile[x][y];
}
