// clock64() and __nanosleep() in kernels: the host's monotonic clock, in nanoseconds.
#include <chrono>
#include <thread>

#include "cuda_runtime.h"

namespace cudaemu {

long long clock_ticks()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void nanosleep_ns(unsigned int ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }

}  // namespace cudaemu
