// The CUDA driver API header. The emulator implements the runtime API only; this header
// exists so that code including <cuda.h> for CUDA_VERSION or the runtime still builds.
#pragma once
// nvcc's cuda.h defines __cuda_cuda_h__; this one must not: helper_cuda.h takes it to mean that
// the driver API (CUresult, cuGetErrorName) is there, and it is not.

#include "cuda_runtime_api.h"

#define CUDA_VERSION 13000

// The driver API's calls are not emulated: a call is a compile error at its line, naming it.
// (Its types are declared so that declarations using them compile; helper_cuda.h's driver API
// helpers stay out, as __cuda_cuda_h__ is not defined.)
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUdeviceptr;
#define CUDAEMU_DRIVER_API(name)                                                                              \
    CUresult name(...) __attribute__((error(#name " is the CUDA driver API, which the CPU emulator does not "  \
                                            "provide: use the runtime API (cudaMalloc, kernel<<<...>>>, ...)")))
extern "C" {
CUDAEMU_DRIVER_API(cuInit);
CUDAEMU_DRIVER_API(cuDriverGetVersion);
CUDAEMU_DRIVER_API(cuDeviceGet);
CUDAEMU_DRIVER_API(cuDeviceGetCount);
CUDAEMU_DRIVER_API(cuDeviceGetName);
CUDAEMU_DRIVER_API(cuDeviceGetAttribute);
CUDAEMU_DRIVER_API(cuDeviceTotalMem);
CUDAEMU_DRIVER_API(cuCtxCreate);
CUDAEMU_DRIVER_API(cuCtxDestroy);
CUDAEMU_DRIVER_API(cuCtxSynchronize);
CUDAEMU_DRIVER_API(cuCtxGetCurrent);
CUDAEMU_DRIVER_API(cuCtxSetCurrent);
CUDAEMU_DRIVER_API(cuDevicePrimaryCtxRetain);
CUDAEMU_DRIVER_API(cuModuleLoad);
CUDAEMU_DRIVER_API(cuModuleLoadData);
CUDAEMU_DRIVER_API(cuModuleLoadDataEx);
CUDAEMU_DRIVER_API(cuModuleGetFunction);
CUDAEMU_DRIVER_API(cuModuleGetGlobal);
CUDAEMU_DRIVER_API(cuModuleUnload);
CUDAEMU_DRIVER_API(cuLaunchKernel);
CUDAEMU_DRIVER_API(cuMemAlloc);
CUDAEMU_DRIVER_API(cuMemFree);
CUDAEMU_DRIVER_API(cuMemcpyHtoD);
CUDAEMU_DRIVER_API(cuMemcpyDtoH);
CUDAEMU_DRIVER_API(cuMemcpyDtoD);
CUDAEMU_DRIVER_API(cuMemsetD8);
CUDAEMU_DRIVER_API(cuMemsetD32);
CUDAEMU_DRIVER_API(cuStreamCreate);
CUDAEMU_DRIVER_API(cuStreamSynchronize);
CUDAEMU_DRIVER_API(cuGetErrorName);
CUDAEMU_DRIVER_API(cuGetErrorString);
}
#undef CUDAEMU_DRIVER_API
