// Runtime functions CUDA has removed: nvcc 13's headers no longer declare them, so a call is a
// compile error there ("identifier "cudaThreadSynchronize" is undefined"). Here too, at the
// student's line, and the error names the replacement:
//   fw.c:67: error: call to 'cudaThreadSynchronize' declared with attribute error:
//            cudaThreadSynchronize was removed from CUDA (nvcc 13 does not declare it); use cudaDeviceSynchronize
// (g++ reports such a call where it compiles it, so one in code that is never compiled, like an
// uninstantiated template, goes unreported.) The grader's CE reason names the replacement in
// both builds from its own table (grader/build.py, REMOVED_CUDA_FUNCTIONS), which a test ties
// to this list.
#pragma once

#include "../driver_types.h"

#define CUDAEMU_REMOVED(name, replacement) \
    cudaError_t name(...) __attribute__((error(#name " was removed from CUDA (nvcc 13 does not declare it); use " replacement)))

#if CUDAEMU_CUDA12_API
// nvcc-emu --cuda-version=12: CUDA 12 still declared the cudaThread* calls, deprecated, and
// ran them as their cudaDevice* replacements; so here, with g++'s deprecation warning.
#define CUDAEMU_DEPRECATED(replacement) \
    __attribute__((deprecated("removed in CUDA 13 (CUDA 12 accepted it, deprecated); use " replacement)))
CUDAEMU_DEPRECATED("cudaDeviceSynchronize") inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
CUDAEMU_DEPRECATED("cudaDeviceReset") inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
CUDAEMU_DEPRECATED("cudaDeviceSetLimit") inline cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value)
{
    return cudaDeviceSetLimit(limit, value);
}
CUDAEMU_DEPRECATED("cudaDeviceGetLimit") inline cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit)
{
    return cudaDeviceGetLimit(value, limit);
}
CUDAEMU_DEPRECATED("cudaDeviceSetCacheConfig") inline cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache config)
{
    return cudaDeviceSetCacheConfig(config);
}
CUDAEMU_DEPRECATED("cudaDeviceGetCacheConfig") inline cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *config)
{
    return cudaDeviceGetCacheConfig(config);
}
#undef CUDAEMU_DEPRECATED
#endif

extern "C" {
#if !CUDAEMU_CUDA12_API
CUDAEMU_REMOVED(cudaThreadSynchronize, "cudaDeviceSynchronize");
CUDAEMU_REMOVED(cudaThreadExit, "cudaDeviceReset");
CUDAEMU_REMOVED(cudaThreadSetLimit, "cudaDeviceSetLimit");
CUDAEMU_REMOVED(cudaThreadGetLimit, "cudaDeviceGetLimit");
CUDAEMU_REMOVED(cudaThreadSetCacheConfig, "cudaDeviceSetCacheConfig");
CUDAEMU_REMOVED(cudaThreadGetCacheConfig, "cudaDeviceGetCacheConfig");
#endif
CUDAEMU_REMOVED(cudaConfigureCall, "kernel<<<...>>>(...) or cudaLaunchKernel");
CUDAEMU_REMOVED(cudaSetupArgument, "kernel<<<...>>>(...) or cudaLaunchKernel");
CUDAEMU_REMOVED(cudaLaunch, "kernel<<<...>>>(...) or cudaLaunchKernel");
CUDAEMU_REMOVED(cudaBindTexture, "texture objects (cudaCreateTextureObject)");
CUDAEMU_REMOVED(cudaBindTexture2D, "texture objects (cudaCreateTextureObject)");
CUDAEMU_REMOVED(cudaBindTextureToArray, "texture objects (cudaCreateTextureObject)");
CUDAEMU_REMOVED(cudaUnbindTexture, "texture objects (cudaDestroyTextureObject)");
CUDAEMU_REMOVED(cudaGetTextureReference, "texture objects (cudaCreateTextureObject)");
}  // extern "C"
