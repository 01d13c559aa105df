// Memory pools for stream-ordered allocation (cudaMallocAsync, cudaMallocFromPoolAsync). Work
// on a stream runs when issued, so a stream-ordered allocation is an ordinary one made at once
// and freed at once: a pool is a handle with its attributes and access settings, and the
// memory it reports in use is the device's (cudaMalloc'd and pool memory alike, as the
// emulator does not tell them apart: an approximation a program can see only by comparing the
// two). Sharing pools between processes is not emulated and says so.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "api/api_errors.h"
#include "api/devices.h"
#include "api/memory_registry.h"

struct CUmemPoolHandle_st {
    int device;
    cudaMemPoolProps props;
    unsigned long long release_threshold = 0;
    int reuse[3] = {1, 1, 1};
    unsigned long long used_high = 0, reserved_high = 0;
    std::map<int, cudaMemAccessFlags> access;
};

namespace cudaemu {
namespace {
std::mutex pools_mutex;
// Every pool made and not destroyed, and each device's default and current pool (guarded by
// pools_mutex; made on first use and never destroyed, like the emulator's other registries).
struct PoolRegistry {
    std::set<const void *> live;
    std::map<int, cudaMemPool_t> default_of, current_of;
};
PoolRegistry &pools()
{
    static auto *registry = new PoolRegistry;
    return *registry;
}

cudaMemPool_t default_pool(int device)
{
    cudaMemPool_t &pool = pools().default_of[device];
    if (!pool) {
        pool = new CUmemPoolHandle_st{};
        pool->device = device;
        pool->props.allocType = cudaMemAllocationTypePinned;
        pool->props.location = cudaMemLocation{cudaMemLocationTypeDevice, device};
        pools().live.insert(pool);
    }
    return pool;
}

cudaError_t check_pool(const char *call, cudaMemPool_t pool)
{
    if (!pool || !pools().live.count(pool))
        return fail(cudaErrorInvalidValue, "%s: %p is not a memory pool from cudaMemPoolCreate or "
                    "cudaDeviceGetDefaultMemPool, or was destroyed", call, (void *)pool);
    return cudaSuccess;
}
}  // namespace
}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool) return fail(cudaErrorInvalidValue, "cudaDeviceGetDefaultMemPool: pass a cudaMemPool_t's address");
    if (!is_device(device)) return fail(cudaErrorInvalidDevice, "cudaDeviceGetDefaultMemPool: no device %d", device);
    std::lock_guard<std::mutex> lock(pools_mutex);
    *memPool = default_pool(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    if (!memPool) return fail(cudaErrorInvalidValue, "cudaDeviceGetMemPool: pass a cudaMemPool_t's address");
    if (!is_device(device)) return fail(cudaErrorInvalidDevice, "cudaDeviceGetMemPool: no device %d", device);
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaMemPool_t current = pools().current_of[device];
    *memPool = current ? current : default_pool(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    if (!is_device(device)) return fail(cudaErrorInvalidDevice, "cudaDeviceSetMemPool: no device %d", device);
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaDeviceSetMemPool", memPool);
    if (error != cudaSuccess) return error;
    if (memPool->device != device)
        return fail(cudaErrorInvalidValue, "cudaDeviceSetMemPool: the pool is device %d's, not device %d's",
                    memPool->device, device);
    pools().current_of[device] = memPool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    if (!memPool || !poolProps) return fail(cudaErrorInvalidValue, "cudaMemPoolCreate: pass a pool's address and its props");
    if (poolProps->allocType != cudaMemAllocationTypePinned ||
        poolProps->location.type != cudaMemLocationTypeDevice || !is_device(poolProps->location.id))
        return fail(cudaErrorNotSupported, "cudaMemPoolCreate: the emulator makes pools of device memory "
                    "(allocType cudaMemAllocationTypePinned, location {cudaMemLocationTypeDevice, a device})");
    if (poolProps->handleTypes != cudaMemHandleTypeNone)
        return fail(cudaErrorNotSupported, "cudaMemPoolCreate: pools shared between processes (handleTypes) are not "
                    "emulated; use cudaMemHandleTypeNone");
    auto *pool = new CUmemPoolHandle_st{};
    pool->device = poolProps->location.id;
    pool->props = *poolProps;
    std::lock_guard<std::mutex> lock(pools_mutex);
    pools().live.insert(pool);
    *memPool = pool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaMemPoolDestroy", memPool);
    if (error != cudaSuccess) return error;
    if (pools().default_of[memPool->device] == memPool)
        return fail(cudaErrorInvalidValue, "cudaMemPoolDestroy: a device's default pool cannot be destroyed");
    for (auto &entry : pools().current_of)
        if (entry.second == memPool) entry.second = nullptr;
    pools().live.erase(memPool);
    delete memPool;
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaMemPoolSetAttribute", memPool);
    if (error != cudaSuccess) return error;
    if (!value) return fail(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: no value");
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: memPool->reuse[attr - 1] = *static_cast<int *>(value); break;
    case cudaMemPoolAttrReleaseThreshold: memPool->release_threshold = *static_cast<unsigned long long *>(value); break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        if (*static_cast<unsigned long long *>(value) != 0)
            return fail(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: a high watermark can only be reset, to 0");
        (attr == cudaMemPoolAttrUsedMemHigh ? memPool->used_high : memPool->reserved_high) = 0;
        break;
    default:
        return fail(cudaErrorInvalidValue, "cudaMemPoolSetAttribute: attribute %d cannot be set", (int)attr);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaMemPoolGetAttribute", memPool);
    if (error != cudaSuccess) return error;
    if (!value) return fail(cudaErrorInvalidValue, "cudaMemPoolGetAttribute: no value's address");
    unsigned long long in_use = device_bytes_in_use(memPool->device);
    memPool->used_high = std::max(memPool->used_high, in_use);
    memPool->reserved_high = std::max(memPool->reserved_high, in_use);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: *static_cast<int *>(value) = memPool->reuse[attr - 1]; break;
    case cudaMemPoolAttrReleaseThreshold: *static_cast<unsigned long long *>(value) = memPool->release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent: *static_cast<unsigned long long *>(value) = in_use; break;
    case cudaMemPoolAttrReservedMemHigh: *static_cast<unsigned long long *>(value) = memPool->reserved_high; break;
    case cudaMemPoolAttrUsedMemHigh: *static_cast<unsigned long long *>(value) = memPool->used_high; break;
    default: return fail(cudaErrorInvalidValue, "cudaMemPoolGetAttribute: %d is not a cudaMemPoolAttr", (int)attr);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaMemPoolSetAccess", memPool);
    if (error != cudaSuccess) return error;
    for (std::size_t i = 0; i < count; ++i) {
        if (descList[i].location.type != cudaMemLocationTypeDevice || !is_device(descList[i].location.id))
            return fail(cudaErrorInvalidDevice, "cudaMemPoolSetAccess: entry %zu names no device of this machine", i);
        memPool->access[descList[i].location.id] = descList[i].flags;
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool, struct cudaMemLocation *location)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    cudaError_t error = check_pool("cudaMemPoolGetAccess", memPool);
    if (error != cudaSuccess) return error;
    if (!flags || !location) return fail(cudaErrorInvalidValue, "cudaMemPoolGetAccess: pass flags' and a location's address");
    auto it = memPool->access.find(location->id);
    *flags = location->id == memPool->device ? cudaMemAccessFlagsProtReadWrite
             : it != memPool->access.end()  ? it->second
                                            : cudaMemAccessFlagsProtNone;
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t)
{
    std::lock_guard<std::mutex> lock(pools_mutex);
    return check_pool("cudaMemPoolTrimTo", memPool);
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    {
        std::lock_guard<std::mutex> lock(pools_mutex);
        cudaError_t error = check_pool("cudaMallocFromPoolAsync", memPool);
        if (error != cudaSuccess) return error;
    }
    return cudaMallocAsync(ptr, size, stream);
}

cudaError_t cudaMemPoolExportToShareableHandle(void *, cudaMemPool_t, enum cudaMemAllocationHandleType, unsigned int)
{
    return fail(cudaErrorNotSupported, "cudaMemPoolExportToShareableHandle: sharing pools between processes is not "
                "emulated");
}

cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *, void *, enum cudaMemAllocationHandleType, unsigned int)
{
    return fail(cudaErrorNotSupported, "cudaMemPoolImportFromShareableHandle: sharing pools between processes is not "
                "emulated");
}

cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *, void *)
{
    return fail(cudaErrorNotSupported, "cudaMemPoolExportPointer: sharing pools between processes is not emulated");
}

cudaError_t cudaMemPoolImportPointer(void **, cudaMemPool_t, struct cudaMemPoolPtrExportData *)
{
    return fail(cudaErrorNotSupported, "cudaMemPoolImportPointer: sharing pools between processes is not emulated");
}

}  // extern "C"
