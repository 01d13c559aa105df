// clock64(), clock() and __nanosleep() in kernels: the host's monotonic clock, in nanoseconds
// (cycles of the device's nominal 1 GHz clockRate).
//
// A read of the clock in a kernel first lets the block's other threads run (the running thread
// goes to the back of the block's queue): a thread that waits for the clock to pass a mark
// (cuda-samples' clockBlock in graphMemoryFootprint: 16 M threads, 5 us each) then waits while
// the others run and wait too, as the warps of an SM do side by side, instead of each spinning
// alone for its whole wait, one thread after another (80 s of CPU a launch there).
#include <chrono>
#include <ctime>
#include <thread>

#include "cuda_runtime.h"
#include "engine/block_runner.h"

namespace cudaemu {

namespace {
long long host_ticks()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

long long clock_ticks()
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) runner->yield_running_thread();
    return host_ticks();
}

clock_t device_clock() { return BlockRunner::running_kernel() ? (clock_t)clock_ticks() : std::clock(); }

void nanosleep_ns(unsigned int ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }

}  // namespace cudaemu
