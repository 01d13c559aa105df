// Device memory is host memory: cudaMalloc is posix_memalign (256-byte aligned, as CUDA
// guarantees, and exactly the size asked for, so AddressSanitizer's redzones sit right after
// it). Every allocation is registered, so frees and copies can be checked. Without ASan, device
// memory gets guard bytes on both sides (api/memory_guards.cpp): a kernel writing past an end
// is named after its launch instead of corrupting the heap ("double free or corruption").
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/api_errors.h"
#include "api/memory_guards.h"
#include "reports/diagnostics.h"
#include "api/devices.h"
#include "api/memory_owners.h"
#include "api/graph_capture.h"
#include "api/memory_registry.h"
#include "api/streams.h"

namespace cudaemu {
namespace {
constexpr std::size_t kDeviceAlignment = 256;
constexpr std::size_t kPitchAlignment = 512;

cudaError_t allocate(const char *call, void **pointer, std::size_t size, MemoryKind kind, std::size_t alignment)
{
    if (!pointer) return fail(cudaErrorInvalidValue, "%s(NULL, %zu): pass the address of your pointer", call, size);
    *pointer = nullptr;
    if (size == 0) return cudaSuccess;
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    void *memory = nullptr;
    if ((kind == MemoryKind::Device || kind == MemoryKind::Managed) && size > free_bytes)
        return fail(cudaErrorMemoryAllocation, "%s of %zu bytes: the emulated device has %zu bytes free (this "
                    "machine's memory); is the size computed right?",
                    call, size, free_bytes);
    bool guarded = kind == MemoryKind::Device || kind == MemoryKind::Managed;
    std::size_t before = guarded ? guard_bytes_before(alignment) : 0;
    std::size_t after = guarded ? guard_bytes_after(size) : 0;
    if (posix_memalign(&memory, alignment, before + size + after) != 0)
        return fail(cudaErrorMemoryAllocation, "%s of %zu bytes: the host is out of memory", call, size);
    char *start = static_cast<char *>(memory) + before;
    set_guards(start, size, before, after);
    Allocation allocation{start, size, current_device(), kind};
    allocation.guard_before = before;
    allocation.guard_after = after;
    remember_allocation(allocation);
    *pointer = start;
    return cudaSuccess;
}

cudaError_t free_kind(const char *call, void *pointer, MemoryKind kind, const char *allocator)
{
    if (!pointer) return cudaSuccess;
    Allocation allocation;
    if (!forget_allocation(pointer, kind, &allocation))
        return fail(cudaErrorInvalidValue, "%s(%p): not a pointer from %s, or freed already", call, pointer, allocator);
    profile_freed(pointer);
    std::free(const_cast<char *>(allocation.block()));
    return cudaSuccess;
}
}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return allocate("cudaMalloc", devPtr, size, MemoryKind::Device, kDeviceAlignment);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int)
{
    return allocate("cudaMallocManaged", devPtr, size, MemoryKind::Managed, kDeviceAlignment);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaMallocAsync");
    if (error == cudaSuccess && devPtr && capture_possible() && capture_malloc(stream, devPtr, size, &error)) return error;
    return error != cudaSuccess ? error : allocate("cudaMallocAsync", devPtr, size, MemoryKind::Device, kDeviceAlignment);
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return fail(cudaErrorInvalidValue, "cudaMallocPitch: pass the address of a size_t for the pitch");
    std::size_t padded = (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
    cudaError_t error = allocate("cudaMallocPitch", devPtr, padded * height, MemoryKind::Device, kDeviceAlignment);
    if (error == cudaSuccess) *pitch = padded;
    return error;
}

cudaError_t cudaFree(void *devPtr)
{
    Allocation allocation;
    if (devPtr && find_allocation(devPtr, &allocation) && allocation.kind == MemoryKind::Graph &&
        allocation.start == devPtr)
        return free_graph_allocation("cudaFree", devPtr);
    if (devPtr && find_allocation(devPtr, &allocation) && allocation.kind == MemoryKind::Managed)
        return free_kind("cudaFree", devPtr, MemoryKind::Managed, "cudaMallocManaged");
    return free_kind("cudaFree", devPtr, MemoryKind::Device, "cudaMalloc");
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    cudaError_t error = check_stream(stream, "cudaFreeAsync");
    if (error == cudaSuccess && devPtr && capture_possible() && capture_free(stream, devPtr, &error)) return error;
    return error != cudaSuccess ? error : cudaFree(devPtr);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return allocate("cudaMallocHost", ptr, size, MemoryKind::PinnedHost, 4096);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int)
{
    return allocate("cudaHostAlloc", pHost, size, MemoryKind::PinnedHost, 4096);
}

cudaError_t cudaFreeHost(void *ptr)
{
    return free_kind("cudaFreeHost", ptr, MemoryKind::PinnedHost, "cudaMallocHost or cudaHostAlloc");
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int)
{
    if (!ptr || size == 0) return fail(cudaErrorInvalidValue, "cudaHostRegister(%p, %zu): nothing to register", ptr, size);
    Allocation existing;
    if (find_allocation(ptr, &existing)) return record_error(cudaErrorHostMemoryAlreadyRegistered);
    remember_allocation(Allocation{static_cast<const char *>(ptr), size, current_device(), MemoryKind::RegisteredHost});
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    Allocation forgotten;
    if (!forget_allocation(ptr, MemoryKind::RegisteredHost, &forgotten))
        return record_error(cudaErrorHostMemoryNotRegistered);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int)
{
    Allocation allocation;
    if (!pDevice) return fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer(NULL, ...): pass a pointer's address");
    if (!find_allocation(pHost, &allocation) ||
        (allocation.kind != MemoryKind::PinnedHost && allocation.kind != MemoryKind::RegisteredHost))
        return fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer: %p is not from cudaHostAlloc or cudaHostRegister",
                    pHost);
    *pDevice = pHost;  // one address space: the device sees host memory where the host does
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    if (!attributes) return fail(cudaErrorInvalidValue, "cudaPointerGetAttributes(NULL, ...)");
    std::memset(attributes, 0, sizeof *attributes);
    Allocation allocation;
    if (!find_allocation(ptr, &allocation)) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = const_cast<void *>(ptr);
        return cudaSuccess;
    }
    attributes->device = allocation.device;
    switch (allocation.kind) {
    case MemoryKind::Device:
    case MemoryKind::Graph: attributes->type = cudaMemoryTypeDevice; break;
    case MemoryKind::Managed: attributes->type = cudaMemoryTypeManaged; break;
    default: attributes->type = cudaMemoryTypeHost; break;
    }
    attributes->devicePointer = const_cast<void *>(ptr);
    if (allocation.kind != MemoryKind::Device && allocation.kind != MemoryKind::Graph) attributes->hostPointer = const_cast<void *>(ptr);
    return cudaSuccess;
}

}  // extern "C"
