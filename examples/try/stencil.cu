// A three-point average through a shared tile, its barrier left out: thread t writes
// tile word t + 1, then reads words t, t + 1 and t + 2. Lane 31 of warp 0 reads the word
// lane 0 of warp 1 writes, and nothing makes warp 0 wait for it: a race between warps,
// which the trace finds whatever the output says. -D SYNC=1 puts the barrier back.
//   gpulab try examples/try/stencil.cu -D SYNC=0 -D SYNC=1 --reference SYNC-1
//
// gpulab: n=1<<22 cpu.n=1<<12 grid=n/256 block=256
// gpulab: in:f32[n]=random out:f32[n] bytes=2*n*4

#ifndef SYNC
#define SYNC 0
#endif

extern "C" __global__ void stencil(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[256 + 2];
    int i = blockIdx.x * 256 + threadIdx.x;
    int t = threadIdx.x + 1;
    tile[t] = in[i];
    if (threadIdx.x == 0)
        tile[0] = i > 0 ? in[i - 1] : 0.0f;
    if (threadIdx.x == 255)
        tile[257] = i + 1 < n ? in[i + 1] : 0.0f;
#if SYNC
    __syncthreads();
#endif
    out[i] = (tile[t - 1] + tile[t] + tile[t + 1]) / 3.0f;
}
