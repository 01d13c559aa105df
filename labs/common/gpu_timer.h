// Times device work with a pair of CUDA events: start(), the work, stop(), then ms().
// Events are recorded in the stream, so the time is the GPU's, not the host's launch time.
#pragma once

#include "cuda_check.h"

class GpuTimer {
public:
    GpuTimer()
    {
        CUDA_CHECK(cudaEventCreate(&start_));
        CUDA_CHECK(cudaEventCreate(&stop_));
    }
    ~GpuTimer()
    {
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    GpuTimer(const GpuTimer &) = delete;
    GpuTimer &operator=(const GpuTimer &) = delete;

    void start(cudaStream_t stream = 0) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
    void stop(cudaStream_t stream = 0) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }
    // Waits for the stop event, then returns the milliseconds between the two events.
    float ms()
    {
        CUDA_CHECK(cudaEventSynchronize(stop_));
        float elapsed = 0;
        CUDA_CHECK(cudaEventElapsedTime(&elapsed, start_, stop_));
        return elapsed;
    }

private:
    cudaEvent_t start_, stop_;
};
