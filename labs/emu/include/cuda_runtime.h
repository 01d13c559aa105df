// The CUDA runtime header, as the CPU emulator (EMU=1) provides it: nvcc includes this in
// every .cu file, and so does the emulator's rewriter. It brings the runtime API, the kernel
// built-ins and device functions, and the C++ conveniences of CUDA's own cuda_runtime.h.
#pragma once
// nvcc's header defines this guard, and NVIDIA's helper headers (helper_cuda.h, ...) test it.
#define __CUDA_RUNTIME_H__

// What nvcc makes visible in a .cu file without an #include (but not <stdio.h>, as with nvcc).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmath>
#include <new>

#include "cuda_emu/qualifiers.h"
#include "cuda_emu/device_arch.h"
#include "cuda_runtime_api.h"
#include "device_launch_parameters.h"
#include "cuda_emu/atomics.h"
#include "cuda_emu/nv_atomics.h"
#include "cuda_emu/block_sync.h"
#include "cuda_emu/ptx_mma.h"
#include "cuda_emu/device_misc.h"
#include "cuda_emu/launch.h"
#include "cuda_emu/math_intrinsics.h"
#include "cuda_emu/memory_access.h"
#include "cuda_emu/shared_memory.h"
#include "cuda_emu/texture_fetch.h"

// ---- C++ overloads, as in CUDA's cuda_runtime.h: typed pointers without casts.
template <class T>
inline cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return cudaMalloc(cudaemu::untyped_out(devPtr), size);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged(cudaemu::untyped_out(devPtr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{
    return cudaMallocPitch(cudaemu::untyped_out(devPtr), pitch, width, height);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return cudaHostAlloc(cudaemu::untyped_out(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return cudaHostAlloc(cudaemu::untyped_out(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return cudaHostGetDevicePointer(cudaemu::untyped_out(pDevice), pHost, flags);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream)
{
    return cudaMallocAsync(cudaemu::untyped_out(devPtr), size, stream);
}

// Symbols: `symbol` is the __device__ or __constant__ variable itself. Copies past its end
// fail with cudaErrorInvalidValue, as they do on a GPU.
namespace cudaemu {
cudaError_t symbol_range_error(const char *call, size_t symbol_bytes, size_t count, size_t offset);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    if (offset > sizeof(T) || count > sizeof(T) - offset)
        return cudaemu::symbol_range_error(__func__, sizeof(T), count, offset);
    return cudaMemcpyToSymbol(static_cast<const void *>(&symbol), src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    if (offset > sizeof(T) || count > sizeof(T) - offset)
        return cudaemu::symbol_range_error(__func__, sizeof(T), count, offset);
    return cudaMemcpyFromSymbol(dst, static_cast<const void *>(&symbol), count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
    if (offset > sizeof(T) || count > sizeof(T) - offset)
        return cudaemu::symbol_range_error(__func__, sizeof(T), count, offset);
    return cudaMemcpyToSymbolAsync(static_cast<const void *>(&symbol), src, count, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0)
{
    if (offset > sizeof(T) || count > sizeof(T) - offset)
        return cudaemu::symbol_range_error(__func__, sizeof(T), count, offset);
    return cudaMemcpyFromSymbolAsync(dst, static_cast<const void *>(&symbol), count, offset, kind, stream);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    return cudaGetSymbolAddress(devPtr, static_cast<const void *>(&symbol));
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &)
{
    *size = sizeof(T);
    return cudaSuccess;
}

inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) { return cudaEventCreateWithFlags(event, flags); }

// Kernels by typed pointer: the emulator learns the parameter types from the pointer.
// (The last two parameters take the caller's position, for the emulator's messages.)
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem = 0, cudaStream_t stream = 0,
                                    const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cudaemu::launch_with_arg_array(
        func, nullptr, cudaemu::LaunchConfig(gridDim, blockDim, sharedMem, stream, file, line), args, false);
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*func)(P...), dim3 gridDim, dim3 blockDim, void **args,
                                               size_t sharedMem = 0, cudaStream_t stream = 0,
                                               const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cudaemu::launch_with_arg_array(
        func, nullptr, cudaemu::LaunchConfig(gridDim, blockDim, sharedMem, stream, file, line), args, true);
}
template <class... P>
inline cudaError_t cudaFuncSetAttribute(void (*func)(P...), cudaFuncAttribute attr, int value)
{
    return cudaFuncSetAttribute(reinterpret_cast<const void *>(func), attr, value);
}
template <class... P>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, void (*func)(P...))
{
    return cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(func));
}
template <class... P>
inline cudaError_t cudaFuncSetCacheConfig(void (*func)(P...), cudaFuncCache cacheConfig)
{
    return cudaFuncSetCacheConfig(reinterpret_cast<const void *>(func), cacheConfig);
}
template <class... P>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, void (*func)(P...), int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void *>(func), blockSize,
                                                         dynamicSMemSize);
}

namespace cudaemu {
cudaError_t max_potential_block_size(int *minGridSize, int *blockSize, const void *func, size_t dynamicSMemSize,
                                     int blockSizeLimit);
}
// The block size with the most resident threads per SM (the largest such), and the grid that
// fills every SM with it. Without register counts the emulator decides by threads and shared
// memory alone.
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                      size_t dynamicSMemSize = 0, int blockSizeLimit = 0)
{
    return cudaemu::max_potential_block_size(minGridSize, blockSize, reinterpret_cast<const void *>(func),
                                             dynamicSMemSize, blockSizeLimit);
}

// ---- Where each copy and fill is called from, for the profile (EMU_PROFILE: who wrote the
// device memory a program copies back, labs/emu/src/api/memory_owners.h). A function-like
// macro only replaces a call (`cudaMemcpy(...)`): the function's address is still its own.
// Not in the runtime's own sources, which define these functions.
#ifndef CUDAEMU_RUNTIME_BUILD
namespace cudaemu {
void note_call_site(const char *file, int line, bool harness);
}
#define CUDAEMU_AT(call, ...) \
    (::cudaemu::note_call_site(__FILE__, __LINE__, CUDAEMU_SITE_IS_HARNESS), ::call(__VA_ARGS__))
#define cudaMemcpy(...) CUDAEMU_AT(cudaMemcpy, __VA_ARGS__)
#define cudaMemcpyAsync(...) CUDAEMU_AT(cudaMemcpyAsync, __VA_ARGS__)
#define cudaMemcpy2D(...) CUDAEMU_AT(cudaMemcpy2D, __VA_ARGS__)
#define cudaMemcpy2DAsync(...) CUDAEMU_AT(cudaMemcpy2DAsync, __VA_ARGS__)
#define cudaMemcpyPeer(...) CUDAEMU_AT(cudaMemcpyPeer, __VA_ARGS__)
#define cudaMemcpyPeerAsync(...) CUDAEMU_AT(cudaMemcpyPeerAsync, __VA_ARGS__)
#define cudaMemset(...) CUDAEMU_AT(cudaMemset, __VA_ARGS__)
#define cudaMemsetAsync(...) CUDAEMU_AT(cudaMemsetAsync, __VA_ARGS__)
#endif
