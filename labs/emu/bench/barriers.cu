// A barrier-heavy kernel: every thread of the block meets the others at __syncthreads() 64
// times, with a little shared-memory work between, so the time is nearly all switching.
#include "bench.h"

__global__ void barrier_heavy(int *out, int rounds)
{
    __shared__ int cell[1024];
    int t = threadIdx.x;
    cell[t] = t;
    int sum = 0;
    for (int r = 0; r < rounds; ++r) {
        __syncthreads();
        sum += cell[(t + r) % blockDim.x];
    }
    out[blockIdx.x * blockDim.x + t] = sum;
}

Timing time_barrier_heavy_ms(int blocks, int threads, int rounds)
{
    int *out = nullptr;
    cudaMalloc(&out, (size_t)blocks * threads * sizeof(int));
    return median_ms(5, [&] { barrier_heavy<<<blocks, threads>>>(out, rounds); });
}
