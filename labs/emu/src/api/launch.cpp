// Launching a kernel: the checks a GPU makes before it runs anything (a bad configuration
// fails the launch, and only cudaGetLastError tells), then the grid, synchronously.
//
// Dynamic parallelism (a launch from device code). Since CUDA 12 a parent grid cannot wait
// for its children (device-side cudaDeviceSynchronize is gone); what CUDA promises is that
// launches into one stream run in launch order, and that a grid is complete, for the host's
// stream order, events and synchronization, only once all the grids it launched are. So a
// launch from device code is checked as a GPU checks it, then recorded with its own copy of
// the arguments; once the parent grid's blocks have all finished, its children run in the
// order launched, each with its own children after it, before the parent's launch returns to
// the host. Every launch from device code is one of a single ordered sequence, whatever
// stream it names (a valid schedule: CUDA promises no concurrency between streams).
#include <algorithm>
#include <atomic>
#include <string>

#include "api/api_errors.h"
#include "api/memory_guards.h"
#include "engine/block_runner.h"
#include "api/device_work.h"
#include "api/devices.h"
#include "api/graph_capture.h"
#include "reports/diagnostics.h"
#include "engine/grid_executor.h"
#include "engine/profiler.h"
#include "engine/race_detector.h"
#include "settings.h"
#include "api/kernel_registry.h"
#include "api/occupancy.h"
#include "engine/device_limits.h"
#include "api/streams.h"

namespace cudaemu {
namespace {
std::atomic<std::uint64_t> launch_counter{0};

// " at file:line" for messages, or nothing when the launch came through the C API.
std::string where(const LaunchConfig &config)
{
    return config.line > 0 ? std::string(" at ") + config.file + ":" + std::to_string(config.line) : std::string();
}

// The launch's configuration error, explained, or cudaSuccess.
cudaError_t check_configuration(const LaunchConfig &config, const KernelInfo &info, const char *name, bool cooperative)
{
    const std::string at = where(config);
    const dim3 &b = config.block, &g = config.grid;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > kMaxBlockDim[0] || b.y > kMaxBlockDim[1] || b.z > kMaxBlockDim[2] ||
        threads > (unsigned long long)kMaxThreadsPerBlock)
        return fail(cudaErrorInvalidConfiguration,
                    "launch of %s%s failed: a block of %u x %u x %u threads; a block has 1 to 1024 threads "
                    "(x and y at most 1024, z at most 64), so the kernel did not run",
                    name, at.c_str(), b.x, b.y, b.z);
    if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > kMaxGridDim[0] || g.y > kMaxGridDim[1] || g.z > kMaxGridDim[2])
        return fail(cudaErrorInvalidConfiguration,
                    "launch of %s%s failed: a grid of %u x %u x %u blocks; each dimension must be at least 1 "
                    "(x at most 2^31-1, y and z at most 65535), so the kernel did not run. Is the block count "
                    "computed right (rounded up, not down to 0)?",
                    name, at.c_str(), g.x, g.y, g.z);
    std::size_t limit = dynamic_shared_limit(info);
    if (config.dynamic_shared_bytes > limit)
        return fail(cudaErrorInvalidValue,
                    "launch of %s%s failed: it asks for %zu bytes of dynamic shared memory; it may have %zu "
                    "(48 KiB less its static __shared__ unless raised with cudaFuncSetAttribute(kernel, "
                    "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to 227 KiB)",
                    name, at.c_str(), config.dynamic_shared_bytes, limit);
    if (cooperative) {
        int per_sm = active_blocks_per_multiprocessor((int)threads, info.static_shared + config.dynamic_shared_bytes);
        unsigned long long resident = (unsigned long long)per_sm * kMultiprocessorCount;
        unsigned long long blocks = (unsigned long long)g.x * g.y * g.z;
        if (blocks > resident)
            return fail(cudaErrorCooperativeLaunchTooLarge,
                        "cooperative launch of %s%s failed: %llu blocks, but only %llu of %u threads fit on the "
                        "device at once (%d per SM x %d SMs); size the grid with "
                        "cudaOccupancyMaxActiveBlocksPerMultiprocessor times multiProcessorCount",
                        name, at.c_str(), blocks, resident, (unsigned)threads, per_sm,
                        kMultiprocessorCount);
    }
    return cudaSuccess;
}

// A launch from device code, by a thread of `parent`: checked now, run after the parent.
cudaError_t record_child_launch(const GridRun &parent, const LaunchConfig &config, const KernelCall &call,
                                const KernelInfo &info, const char *name, bool cooperative)
{
    const std::string at = where(config);
    if (cooperative)
        return fail(cudaErrorNotSupported,
                    "cooperative launch of %s%s from device code: CUDA has no device-side cooperative launch",
                    name, at.c_str());
    if (parent.depth + 1 > kMaxLaunchDepth)
        return fail(cudaErrorLaunchMaxDepthExceeded,
                    "launch of %s%s from device code, by a grid of %s nested %d deep: grids launched from device "
                    "code nest at most %d deep, so the kernel did not run. Does the recursion stop?",
                    name, at.c_str(), parent.kernel_name, parent.depth, kMaxLaunchDepth);
    if (cudaError_t error = check_configuration(config, info, name, false); error != cudaSuccess) return error;
    ChildLaunch child{config, call};
    child.call.bound_args = call.clone_args(call.bound_args);
    std::lock_guard<std::mutex> lock(parent.children_mutex);
    parent.children.push_back(child);
    return cudaSuccess;
}

cudaError_t launch_grid(const LaunchConfig &config, const KernelCall &call, bool cooperative, int depth);

// The grids `grid`'s threads launched, in order, each after its own children; the first error.
cudaError_t run_children(GridRun &grid)
{
    cudaError_t first = cudaSuccess;
    for (ChildLaunch &child : grid.children) {
        cudaError_t error = launch_grid(child.config, child.call, false, grid.depth + 1);
        child.call.destroy_args(child.call.bound_args);
        if (first == cudaSuccess) first = error;
    }
    grid.children.clear();
    return first;
}

cudaError_t launch_grid(const LaunchConfig &config, const KernelCall &call, bool cooperative, int depth)
{
    KernelInfo info = kernel_info(call.kernel);
    std::string name = call.name ? call.name : (info.name.empty() ? std::string("kernel") : info.name);
    if (depth == 0) {  // from the host: a child's configuration was checked when it was made
        cudaError_t captured;
        if (__builtin_expect(capture_possible(), 0) && capture_kernel(config, call, cooperative, &captured))
            return captured;
        cudaError_t error = check_stream(config.stream, "kernel launch");
        if (error == cudaSuccess) error = check_configuration(config, info, name.c_str(), cooperative);
        if (error != cudaSuccess) return error;
    }

    GridRun grid;
    grid.call = &call;
    grid.kernel_name = name.c_str();
    grid.file = config.file;
    grid.line = config.line;
    grid.grid = config.grid;
    grid.block = config.block;
    grid.dynamic_shared_bytes = config.dynamic_shared_bytes;
    grid.depth = depth;
    grid.schedule = schedule_from_environment();
    grid.launch_number = launch_counter.fetch_add(1, std::memory_order_relaxed);
    bool racecheck = racecheck_on();
    if (racecheck) grid.global_writes = GlobalWriteLog::take(grid.launch_number);
    if (profile_on())
        grid.profile = profile_begin_launch(grid.kernel_name, config.file, config.line, config.harness,
                                            current_device(), config.grid, config.block);
    access_hooks_on = racecheck || grid.profile;
    atomic_hooks_on = grid.profile != nullptr;
    {
        DeviceWork work(current_device());  // a copy touching this device's memory waits for it
        if (cooperative)
            execute_cooperative_grid(grid);
        else
            execute_grid(grid);
    }
    if (grid.global_writes) GlobalWriteLog::give_back(grid.global_writes);
    if (grid.profile) profile_end_launch(grid.profile);
    cudaError_t damage = check_guards_after(grid);  // the parent's own, before its children run
    cudaError_t children = run_children(grid);
    if (damage != cudaSuccess) return damage;

    // Static __shared__ sizes are known once blocks have run them: remember, and fail the
    // launch as a GPU would have if static plus dynamic memory was over the kernel's limit.
    std::size_t static_shared = grid.max_static_shared.load();
    update_kernel_info(call.kernel, [&](KernelInfo &entry) {
        entry.static_shared = std::max(entry.static_shared, static_shared);
        entry.static_shared_known = true;
    });
    info.static_shared = static_shared;
    std::size_t limit = dynamic_shared_limit(info);
    if (config.dynamic_shared_bytes > limit)
        return fail(cudaErrorInvalidValue,
                    "launch of %s%s: %zu bytes of static __shared__ plus %zu of dynamic shared memory are "
                    "more than a block may have (%zu dynamic with this much static). A GPU refuses this launch "
                    "(the emulator learned the static size only by running it, so this first launch did run)",
                    name.c_str(), where(config).c_str(), static_shared, config.dynamic_shared_bytes, limit);
    return children;
}
}  // namespace

cudaError_t launch(const LaunchConfig &config, const KernelCall &call, bool cooperative)
{
    if (BlockRunner *runner = BlockRunner::running_kernel()) {
        KernelInfo info = kernel_info(call.kernel);
        std::string name = call.name ? call.name : (info.name.empty() ? std::string("kernel") : info.name);
        return record_child_launch(*runner->grid(), config, call, info, name.c_str(), cooperative);
    }
    return launch_grid(config, call, cooperative, 0);
}

}  // namespace cudaemu

using namespace cudaemu;

namespace {
cudaError_t launch_by_address(const char *call, const void *func, dim3 grid, dim3 block, void **args,
                              size_t shared, cudaStream_t stream, bool cooperative)
{
    KernelInfo info = kernel_info(func);
    if (!info.launcher)
        return fail(cudaErrorInvalidDeviceFunction,
                    "%s(%p, ...): the emulator does not know this kernel's parameters. It learns them from a "
                    "non-template __global__ function defined in a .cu file of the build, or from a typed "
                    "pointer: pass the kernel without casting it to void*",
                    call, func);
    return info.launcher(func, nullptr, LaunchConfig(grid, block, shared, stream, "", 0), args,
                         cooperative);
}
}  // namespace

extern "C" {

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    return launch_by_address("cudaLaunchKernel", func, gridDim, blockDim, args, sharedMem, stream, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                        cudaStream_t stream)
{
    return launch_by_address("cudaLaunchCooperativeKernel", func, gridDim, blockDim, args, sharedMem, stream, true);
}

}  // extern "C"
