// A coalesced copy: lane i of a warp reads and writes the word next to lane i - 1's, so
// each warp's load asks for 128 neighbouring bytes, four whole 32-byte sectors, all used.
// Checked against the built-in copy (out[i] = in[i]) on fresh random inputs.
//
// gpulab: n=1<<24 cpu.n=1<<14 grid=ceil_div(n,256) block=256
// gpulab: in:f32[n]=random out:f32[n] bytes=2*n*4 check=copy(in,out)

extern "C" __global__ void copy(const float* __restrict__ in, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}
