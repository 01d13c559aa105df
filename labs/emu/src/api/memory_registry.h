// Every block of memory the runtime handed out (cudaMalloc, cudaMallocManaged, cudaMallocHost,
// cudaHostAlloc) or was told about (cudaHostRegister), so that copies and frees can be
// checked the way a GPU driver checks them: a pointer that is not device memory, or a copy
// that runs past the end of an allocation, is an error rather than silent corruption.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudaemu {

// Graph: the memory of a graph's memory-alloc node while allocated (src/api/graphs.cpp owns it).
enum class MemoryKind { Device, Managed, PinnedHost, RegisteredHost, Graph };

struct Allocation {
    const char *start = nullptr;
    std::size_t size = 0;
    int device = 0;
    MemoryKind kind = MemoryKind::Device;
};

void remember_allocation(const Allocation &allocation);
// The allocation that contains `address`, if any.
bool find_allocation(const void *address, Allocation *found);
// Forgets the allocation that starts at `start`; false when none does.
bool forget_allocation(const void *start, MemoryKind kind, Allocation *forgotten);
void free_device_allocations(int device);
std::size_t device_bytes_in_use(int device);

}  // namespace cudaemu
