// One launch as the CPU threads executing it share it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "engine/schedule.h"

namespace cudaemu {
class GlobalWriteLog;
struct LaunchProfile;

// The barrier of this_grid().sync(): one CPU thread per block waits here, once all of its
// block's threads have arrived. A block that has finished leaves, so the rest are not stuck.
class GridBarrier {
public:
    explicit GridBarrier(unsigned blocks) : expected_(blocks) {}
    void arrive_and_wait()
    {
        std::unique_lock<std::mutex> lock(mutex_);
        unsigned generation = generation_;
        if (++arrived_ == expected_) {
            complete();
            return;
        }
        changed_.wait(lock, [&] { return generation_ != generation; });
    }
    void leave()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        --expected_;
        if (arrived_ > 0 && arrived_ == expected_) complete();
    }

private:
    void complete()
    {
        arrived_ = 0;
        ++generation_;
        changed_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable changed_;
    unsigned expected_;
    unsigned arrived_ = 0;
    unsigned generation_ = 0;
};

// A launch made by device code (dynamic parallelism): its configuration and its own copy of
// the arguments, run once the launching grid's blocks have all finished (api/launch.cpp).
struct ChildLaunch {
    LaunchConfig config;
    KernelCall call;  // call.bound_args is the copy, freed with call.destroy_args
};

struct GridRun {
    const KernelCall *call = nullptr;
    const char *kernel_name = "kernel";
    const char *file = "";
    int line = 0;
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared_bytes = 0;
    SchedulePolicy schedule;
    std::uint64_t launch_number = 0;
    GridBarrier *grid_barrier = nullptr;        // set for cooperative launches
    GlobalWriteLog *global_writes = nullptr;    // set under EMU_RACECHECK (engine/race_detector.h)
    LaunchProfile *profile = nullptr;           // set under EMU_PROFILE (engine/profiler.h)
    std::atomic<std::size_t> max_static_shared{0};  // the most any block placed
    int depth = 0;  // 0 for a launch from the host, its children's grids 1, and so on
    // The launches its threads made, in the order made (blocks on several CPU threads add to it).
    mutable std::mutex children_mutex;
    mutable std::vector<ChildLaunch> children;

    std::uint64_t block_count() const { return (std::uint64_t)grid.x * grid.y * grid.z; }
    // " (launched at file:line)" for messages; empty for launches through the C API.
    std::string launch_site() const
    {
        return line > 0 ? " (launched at " + std::string(file) + ":" + std::to_string(line) + ")" : std::string();
    }
    unsigned threads_per_block() const { return block.x * block.y * block.z; }
};

}  // namespace cudaemu
