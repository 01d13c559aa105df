// Every block of memory the runtime handed out (cudaMalloc, cudaMallocManaged, cudaMallocHost,
// cudaHostAlloc) or was told about (cudaHostRegister), so that copies and frees can be
// checked the way a GPU driver checks them: a pointer that is not device memory, or a copy
// that runs past the end of an allocation, is an error rather than silent corruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudaemu {

// Graph: the memory of a graph's memory-alloc node while allocated (src/api/graph_model.cpp owns it).
enum class MemoryKind { Device, Managed, PinnedHost, RegisteredHost, Graph };

struct Allocation {
    const char *start = nullptr;
    std::size_t size = 0;
    int device = 0;
    MemoryKind kind = MemoryKind::Device;
    // Guard bytes around device memory in the plain (non-ASan) runtime: `guard_before` bytes
    // before `start` (where the block from malloc begins) and `guard_after` after its end, set
    // to a pattern, so that a kernel writing past either end damages them instead of the heap
    // (api/memory_guards.cpp).
    std::size_t guard_before = 0;
    std::size_t guard_after = 0;
    const char *block() const { return start - guard_before; }
};

constexpr unsigned char kGuardByte = 0xA5;

// One allocation whose guard was found changed: where, and how many bytes of it.
struct GuardDamage {
    Allocation allocation;
    std::size_t bytes_changed = 0;
    long long first = 0, last = 0;  // changed bytes' offsets from `start` (negative: before it)
};

void remember_allocation(const Allocation &allocation);
// The allocation that contains `address`, if any.
bool find_allocation(const void *address, Allocation *found);
// Forgets the allocation that starts at `start`; false when none does.
bool forget_allocation(const void *start, MemoryKind kind, Allocation *forgotten);
void free_device_allocations(int device);
// Checks the guards of the device's allocations, under the registry's lock (so none is freed
// meanwhile); each damaged guard is reported and set to its pattern again.
std::vector<GuardDamage> check_guards(int device);
std::size_t device_bytes_in_use(int device);

}  // namespace cudaemu
