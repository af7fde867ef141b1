// One field of a particle, read from three layouts. A particle has four floats: x, y, z and
// its mass. Every kernel here moves each particle along x by `dx` and writes the new x to
// out[i]; they differ only in where particle i's x sits in memory.
//
//   array of structures (AoS):  p = { x0 y0 z0 m0 | x1 y1 z1 m1 | ... }, x of i at p[4i]
//   structure of arrays (SoA):  p = { x0 x1 ... | y0 y1 ... | z0 ... | m0 ... }, x at p[i]
//   tiles of 32 (AoSoA):        p = { x0..x31 y0..y31 z0..z31 m0..m31 | x32 ... }
//
// The thread-to-particle mapping is the same in all of them: a block owns 256 * PER_THREAD
// neighbouring particles and each thread takes PER_THREAD of them, 256 apart, so a warp's
// 32 lanes always handle 32 neighbouring particles. All loads are issued before the first
// store, so each thread keeps PER_THREAD loads in flight whatever the layout.

#define PER_THREAD 4

struct Particle {
    float x, y, z, mass;
};

__device__ __forceinline__ unsigned first_particle()
{
    return blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
}

// AoS, reading only x: lane l reads 4 bytes at byte 16 l, so a warp's request spans 512
// bytes, 16 sectors, of which it uses 128 bytes.
extern "C" __global__ void move_aos(const Particle* __restrict__ p, float* __restrict__ out,
                                    float dx)
{
    unsigned i = first_particle();
    float x[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) x[k] = p[i + k * blockDim.x].x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) out[i + k * blockDim.x] = x[k] + dx;
}

// Tiles of 32 (an "array of structures of arrays"): particles are kept together in tiles
// of 32, and inside a tile each field is an array of 32 floats:
//   p = { x0..x31 y0..y31 z0..z31 m0..m31 | x32..x63 y32..y63 ... }
// A warp's 32 particles are one tile, so its x values are again 128 contiguous bytes.
#define TILE 32

extern "C" __global__ void move_tiled(const float* __restrict__ p, float* __restrict__ out,
                                      float dx)
{
    unsigned i = first_particle();
    float x[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned j = i + k * blockDim.x;
        x[k] = p[(j / TILE) * (4 * TILE) + j % TILE];
    }
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) out[i + k * blockDim.x] = x[k] + dx;
}

// SoA: the x array comes first, n floats; lane l reads 4 bytes at byte 4 l, one 128-byte
// line per warp, 4 sectors, all used. The y, z and mass arrays that follow are never read.
extern "C" __global__ void move_soa(const float* __restrict__ p, float* __restrict__ out,
                                    float dx)
{
    unsigned i = first_particle();
    const float* xs = p;
    float x[PER_THREAD];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) x[k] = xs[i + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) out[i + k * blockDim.x] = x[k] + dx;
}
