// Per-kernel attributes: cudaFuncSetAttribute (the dynamic shared memory opt-in),
// cudaFuncGetAttributes, and the cache settings, which have nothing to emulate.
#include "api/api_errors.h"
#include "engine/device_limits.h"
#include "api/kernel_registry.h"

using namespace cudaemu;

extern "C" {

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    if (!func) return fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetAttribute(NULL, ...): pass the kernel");
    KernelInfo info = kernel_info(func);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || (std::size_t)value + info.static_shared > kSharedPerBlockOptin)
            return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize, %d): "
                        "a block may have at most %zu bytes of shared memory in all (%zu static here)",
                        value, kSharedPerBlockOptin, info.static_shared);
        update_kernel_info(func, [&](KernelInfo &entry) { entry.max_dynamic_shared = value; });
        return cudaSuccess;
    }
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        if (value < -1 || value > 100)
            return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute(cudaFuncAttributePreferredSharedMemoryCarveout, "
                        "%d): a percentage from 0 to 100, or -1", value);
        update_kernel_info(func, [&](KernelInfo &entry) { entry.preferred_carveout = value; });
        return cudaSuccess;
    }
    return cudaSuccess;  // cluster attributes: accepted, nothing to emulate
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr) return fail(cudaErrorInvalidValue, "cudaFuncGetAttributes(NULL, ...): pass a cudaFuncAttributes");
    if (!func) return fail(cudaErrorInvalidDeviceFunction, "cudaFuncGetAttributes(..., NULL): pass the kernel");
    KernelInfo info = kernel_info(func);
    *attr = cudaFuncAttributes{};
    attr->sharedSizeBytes = info.static_shared;  // known after the kernel's first launch
    attr->maxThreadsPerBlock = kMaxThreadsPerBlock;
    attr->numRegs = 32;
    attr->ptxVersion = kComputeMajor * 10 + kComputeMinor;
    attr->binaryVersion = attr->ptxVersion;
    attr->maxDynamicSharedSizeBytes = (int)dynamic_shared_limit(info);
    attr->preferredShmemCarveout = info.preferred_carveout;
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache)
{
    return func ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetCacheConfig(NULL, ...)");
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig)
{
    return func ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction, "cudaFuncSetSharedMemConfig(NULL, ...)");
}

}  // extern "C"
