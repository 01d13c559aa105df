#include "api/profile_timeline.h"

#include <mutex>

#include "api/memory_registry.h"

namespace cudaemu {
namespace {
// A run that issues more than this many operations keeps the first ones: the comparison needs
// the order of the work, and a loop of millions of launches would otherwise hold gigabytes.
constexpr std::size_t kMaxEvents = 1000000;

struct Timeline {
    std::mutex mutex;
    std::vector<TimelineEvent> events;
};
Timeline &state()
{
    static Timeline *t = new Timeline();  // never destroyed: read at exit
    return *t;
}

void add(TimelineEvent event)
{
    std::lock_guard<std::mutex> lock(state().mutex);
    if (state().events.size() < kMaxEvents) state().events.push_back(std::move(event));
}

// The device whose memory holds `address`, or -1 for host memory (pinned and registered too).
int device_of(const void *address)
{
    Allocation allocation;
    if (!find_allocation(address, &allocation)) return -1;
    bool on_device = allocation.kind == MemoryKind::Device || allocation.kind == MemoryKind::Managed ||
                     allocation.kind == MemoryKind::Graph;
    return on_device ? allocation.device : -1;
}
}  // namespace

void timeline_kernel(const char *kernel, const char *file, bool harness, int device, dim3 grid, dim3 block)
{
    TimelineEvent event;
    event.kind = TimelineEvent::Kind::Kernel;
    event.kernel = kernel;
    event.file = file ? file : "";
    event.harness = harness;
    event.device = device;
    event.grid = grid;
    event.block = block;
    add(std::move(event));
}

void timeline_copy(void *dst, const void *src, std::size_t bytes)
{
    if (bytes == 0) return;
    TimelineEvent event;
    event.kind = TimelineEvent::Kind::Copy;
    event.bytes = bytes;
    event.src_device = device_of(src);
    event.dst_device = device_of(dst);
    if (event.src_device < 0 && event.dst_device < 0) return;
    if (event.src_device < 0) {
        event.direction = "HtoD";
        event.device = event.dst_device;
    } else if (event.dst_device < 0) {
        event.direction = "DtoH";
        event.device = event.src_device;
    } else {
        event.direction = event.src_device == event.dst_device ? "DtoD" : "PtoP";
        event.device = event.src_device;
    }
    add(std::move(event));
}

void timeline_fill(void *dst, std::size_t bytes)
{
    int device = device_of(dst);
    if (bytes == 0 || device < 0) return;
    TimelineEvent event;
    event.kind = TimelineEvent::Kind::Memset;
    event.bytes = bytes;
    event.device = device;
    event.dst_device = device;
    add(std::move(event));
}

std::vector<TimelineEvent> timeline()
{
    std::lock_guard<std::mutex> lock(state().mutex);
    return state().events;
}

}  // namespace cudaemu
