// The emulator's benchmark: helpers shared by its parts (see main.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

// Median wall-clock milliseconds of `runs` runs of `work`, timed with CUDA events (which,
// under emulation, read the host's clock).
template <class Work>
double median_ms(int runs, Work work)
{
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    work();  // warm-up: fiber stacks and shared memory are made on first use
    std::vector<float> times;
    for (int run = 0; run < runs; ++run) {
        cudaEventRecord(start);
        work();
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        times.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

double time_increment_ms(int n, int block_size);
double time_barrier_heavy_ms(int blocks, int threads, int rounds);
double fiber_switch_ns(long switches);
