#include "api/memory_registry.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

namespace cudaemu {
namespace {
std::mutex registry_mutex;
// Never destroyed: memory still allocated at exit stays reachable from here, so LeakSanitizer
// does not report device memory the program did not free (CUDA frees it with the context).
std::map<const char *, Allocation> &allocations()
{
    static auto *by_start = new std::map<const char *, Allocation>;
    return *by_start;
}
}  // namespace

void remember_allocation(const Allocation &allocation)
{
    std::lock_guard<std::mutex> lock(registry_mutex);
    allocations()[allocation.start] = allocation;
}

bool find_allocation(const void *address, Allocation *found)
{
    const char *a = static_cast<const char *>(address);
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto after = allocations().upper_bound(a);
    if (after == allocations().begin()) return false;
    const Allocation &candidate = std::prev(after)->second;
    // A zero-size allocation still owns its start address.
    if (a >= candidate.start + (candidate.size ? candidate.size : 1)) return false;
    *found = candidate;
    return true;
}

bool forget_allocation(const void *start, MemoryKind kind, Allocation *forgotten)
{
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = allocations().find(static_cast<const char *>(start));
    if (it == allocations().end() || it->second.kind != kind) return false;
    *forgotten = it->second;
    allocations().erase(it);
    return true;
}

void free_device_allocations(int device)
{
    std::vector<Allocation> doomed;
    {
        std::lock_guard<std::mutex> lock(registry_mutex);
        for (auto it = allocations().begin(); it != allocations().end();) {
            bool owned = it->second.device == device &&
                         (it->second.kind == MemoryKind::Device || it->second.kind == MemoryKind::Managed);
            if (owned) {
                doomed.push_back(it->second);
                it = allocations().erase(it);
            } else {
                ++it;
            }
        }
    }
    for (const Allocation &allocation : doomed) std::free(const_cast<char *>(allocation.block()));
}

std::vector<GuardDamage> check_guards(int device)
{
    std::vector<GuardDamage> damaged;
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (const auto &entry : allocations()) {
        const Allocation &a = entry.second;
        if (a.device != device || (a.guard_before == 0 && a.guard_after == 0)) continue;
        GuardDamage damage{a, 0, 0, 0};
        auto changed = [&](char *at) {
            long long offset = at - a.start;
            if (damage.bytes_changed++ == 0) damage.first = offset;
            damage.last = offset;
            *at = static_cast<char>(kGuardByte);
        };
        auto scan = [&](char *from, std::size_t bytes) {
            // A word at a time; byte by byte only inside a changed word and in the last few bytes.
            constexpr std::uint64_t kPattern = 0x0101010101010101ull * kGuardByte;
            std::size_t i = 0;
            for (; i + 8 <= bytes; i += 8) {
                std::uint64_t word;
                std::memcpy(&word, from + i, 8);
                if (word != kPattern)
                    for (std::size_t b = i; b < i + 8; ++b)
                        if (static_cast<unsigned char>(from[b]) != kGuardByte) changed(from + b);
            }
            for (; i < bytes; ++i)
                if (static_cast<unsigned char>(from[i]) != kGuardByte) changed(from + i);
        };
        scan(const_cast<char *>(a.block()), a.guard_before);
        scan(const_cast<char *>(a.start) + a.size, a.guard_after);
        if (damage.bytes_changed) damaged.push_back(damage);
    }
    return damaged;
}

std::size_t device_bytes_in_use(int device)
{
    std::lock_guard<std::mutex> lock(registry_mutex);
    std::size_t bytes = 0;
    for (const auto &entry : allocations())
        if (entry.second.device == device &&
            (entry.second.kind == MemoryKind::Device || entry.second.kind == MemoryKind::Managed))
            bytes += entry.second.size;
    return bytes;
}

}  // namespace cudaemu
