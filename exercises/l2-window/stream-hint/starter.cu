// A hot table read again and again while a cold stream passes through the L2 once, as in
// the lesson, launched with no access-policy window.
//
// Thread t < threads adds up, over `steps` steps, the four words of each of:
//   - two uint4s of the cold stream: cold[(2 s) * threads + t] and cold[(2 s + 1) * threads + t]
//   - one uint4 of the hot table: hot[h], where h starts at t, grows by `threads` each
//     step and wraps round at hot_n
// and writes the sum to out[t].

extern "C" __global__ void hot_and_cold_mine(const uint4* __restrict__ hot,
                                             const uint4* __restrict__ cold,
                                             unsigned* __restrict__ out,
                                             unsigned hot_n, int steps, int threads)
{
    // Your kernel here.
}
