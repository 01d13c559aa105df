#include "api/device_work.h"

#include <algorithm>
#include <mutex>

#include "api/memory_registry.h"
#include "settings.h"

namespace cudaemu {
namespace {
// One lock per emulated device (at most 64, settings.cpp), made once and never destroyed, as
// kernels may still run in detached threads at exit.
std::mutex &device_lock(int device)
{
    static std::mutex *locks = new std::mutex[64];
    return locks[device];
}

// The device whose memory `address` is (device or managed memory), else -1.
int device_of(const void *address)
{
    Allocation allocation;
    if (!address || !find_allocation(address, &allocation)) return -1;
    return allocation.kind == MemoryKind::Device || allocation.kind == MemoryKind::Managed ||
                   allocation.kind == MemoryKind::Graph
               ? allocation.device
               : -1;
}
}  // namespace

DeviceWork::DeviceWork(const void *dst, const void *src) : DeviceWork(device_of(dst), device_of(src)) {}

DeviceWork::DeviceWork(int first, int second)
{
    if (first == second) second = -1;
    if (second >= 0 && (first < 0 || second < first)) std::swap(first, second);
    held_[0] = first;
    held_[1] = second;
    for (int device : held_)
        if (device >= 0 && device < emulated_device_count()) device_lock(device).lock();
}

DeviceWork::~DeviceWork()
{
    for (int i = 1; i >= 0; --i)
        if (held_[i] >= 0 && held_[i] < emulated_device_count()) device_lock(held_[i]).unlock();
}
}  // namespace cudaemu
