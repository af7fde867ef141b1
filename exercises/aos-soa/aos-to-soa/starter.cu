// Move every particle's x by dx: out[i] = x of particle i + dx, for n particles. Each
// thread handles 4 particles, blockDim.x apart.
//
// The particle store has been converted to a structure of arrays: p now holds all n x
// values, then all n y values, then z, then mass. This kernel still reads it as an array
// of { x, y, z, mass } structures.

#define PER_THREAD 4

struct Particle {
    float x, y, z, mass;
};

extern "C" __global__ void move_mine(const float* __restrict__ p, float* __restrict__ out,
                                     float dx, int n)
{
    const Particle* particles = reinterpret_cast<const Particle*>(p);
    unsigned first = blockIdx.x * (blockDim.x * PER_THREAD) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        unsigned i = first + k * blockDim.x;
        if (i < n) out[i] = particles[i].x + dx;
    }
}
