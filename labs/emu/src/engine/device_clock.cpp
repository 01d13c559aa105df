// clock64(), clock() and __nanosleep() in kernels: the host's monotonic clock, in nanoseconds
// (cycles of the device's nominal 1 GHz clockRate).
#include <chrono>
#include <ctime>
#include <thread>

#include "cuda_runtime.h"
#include "engine/block_runner.h"

namespace cudaemu {

long long clock_ticks()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

clock_t device_clock() { return BlockRunner::running_kernel() ? (clock_t)clock_ticks() : std::clock(); }

void nanosleep_ns(unsigned int ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }

}  // namespace cudaemu
