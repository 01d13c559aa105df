// The emulated device's limits: those of an H100 (compute capability 9.0) where a program can
// observe them (block and grid sizes, shared memory), and a small SM count so that a
// cooperative grid sized from it stays affordable on a laptop.
#pragma once

#include <cstddef>

#include "cuda_emu/device_arch.h"

namespace cudaemu {
constexpr int kMaxThreadsPerBlock = 1024;
constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535u, 65535u};
constexpr std::size_t kSharedPerBlock = 48 * 1024;          // static, and dynamic by default
constexpr std::size_t kSharedPerBlockOptin = 227 * 1024;    // with cudaFuncAttributeMaxDynamicSharedMemorySize
constexpr std::size_t kSharedPerMultiprocessor = 228 * 1024;
constexpr std::size_t kReservedSharedPerBlock = 1024;
constexpr int kMaxThreadsPerMultiprocessor = 2048;
// Grids launched from device code nest at most this deep (the programming guide's 24 levels).
constexpr int kMaxLaunchDepth = 24;
constexpr int kMaxBlocksPerMultiprocessor = 32;
constexpr int kMultiprocessorCount = 8;
constexpr int kWarpSize = 32;
constexpr int kComputeMajor = CUDAEMU_CUDA_ARCH / 100;
constexpr int kComputeMinor = CUDAEMU_CUDA_ARCH % 100 / 10;
constexpr std::size_t kTotalConstantMemory = 64 * 1024;
constexpr int kRegistersPerBlock = 65536;
}  // namespace cudaemu
