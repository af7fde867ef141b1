// The worker's own comparison of an output with what it should hold, on the GPU: a large
// output (a GiB of a 16384^2 transpose) is judged where it lies instead of copied to the
// host on every save. Each kernel counts the wrong elements into out[0] and keeps the
// smallest wrong index in out[1]; the host names that element as its own comparison does.
// Built with --fmad=false: the tolerance must round as the host's does, a multiply then an
// add, or an element on the bar could be judged differently here and there.

#define FIRST_NONE 0xFFFFFFFFFFFFFFFFull

struct Tol {
    double abs, rel;
};

// The host's rule (worker::outputs::float_ok): NaN never passes; else equal, or within
// abs + rel x the larger magnitude.
__device__ bool float_ok(double got, double want, Tol t) {
    if (isnan(got) || isnan(want)) return false;
    return got == want || fabs(got - want) <= t.abs + t.rel * fmax(fabs(want), fabs(got));
}

template <typename T, typename Judge>
__device__ void scan(const T* got, const T* want, unsigned long long n, Judge judge,
                     unsigned long long* out) {
    __shared__ unsigned long long bad_here, first_here;
    if (threadIdx.x == 0) {
        bad_here = 0;
        first_here = FIRST_NONE;
    }
    __syncthreads();
    unsigned long long bad = 0, first = FIRST_NONE;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        if (!judge(got[i], want[i])) {
            bad++;
            if (first == FIRST_NONE) first = i;
        }
    }
    // One atomic per wrong thread into shared memory, one per block into the answer: a
    // wholly wrong output must not queue a quarter-billion atomics on one word.
    if (bad) {
        atomicAdd(&bad_here, bad);
        atomicMin(&first_here, first);
    }
    __syncthreads();
    if (threadIdx.x == 0 && bad_here) {
        atomicAdd(&out[0], bad_here);
        atomicMin(&out[1], first_here);
    }
}

struct FloatJudge {
    Tol t;
    __device__ bool operator()(float g, float w) const { return float_ok(g, w, t); }
    __device__ bool operator()(double g, double w) const { return float_ok(g, w, t); }
};

struct ExactJudge {
    template <typename T>
    __device__ bool operator()(T g, T w) const { return g == w; }
};

// Tolerances come as their bit patterns: the worker's launch arguments carry integers.
extern "C" __global__ void gpulab_compare_f32(const float* got, const float* want,
                                              unsigned long long n, unsigned long long abs_bits,
                                              unsigned long long rel_bits,
                                              unsigned long long* out) {
    Tol t = {__longlong_as_double(abs_bits), __longlong_as_double(rel_bits)};
    scan(got, want, n, FloatJudge{t}, out);
}

extern "C" __global__ void gpulab_compare_f64(const double* got, const double* want,
                                              unsigned long long n, unsigned long long abs_bits,
                                              unsigned long long rel_bits,
                                              unsigned long long* out) {
    Tol t = {__longlong_as_double(abs_bits), __longlong_as_double(rel_bits)};
    scan(got, want, n, FloatJudge{t}, out);
}

extern "C" __global__ void gpulab_compare_u32(const unsigned* got, const unsigned* want,
                                              unsigned long long n, unsigned long long,
                                              unsigned long long, unsigned long long* out) {
    scan(got, want, n, ExactJudge{}, out);
}

extern "C" __global__ void gpulab_compare_u64(const unsigned long long* got,
                                              const unsigned long long* want,
                                              unsigned long long n, unsigned long long,
                                              unsigned long long, unsigned long long* out) {
    scan(got, want, n, ExactJudge{}, out);
}
