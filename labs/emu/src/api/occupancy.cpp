// The occupancy API: cudaOccupancyMaxActiveBlocksPerMultiprocessor and kin, by the emulated
// SM's limits (occupancy.h).
#include <algorithm>

#include "api/api_errors.h"
#include "engine/device_limits.h"
#include "api/kernel_registry.h"
#include "api/occupancy.h"

namespace cudaemu {

int active_blocks_per_multiprocessor(int block_threads, std::size_t shared_bytes)
{
    if (block_threads <= 0 || block_threads > kMaxThreadsPerBlock) return 0;
    int warps = (block_threads + kWarpSize - 1) / kWarpSize;
    int blocks = std::min(kMaxBlocksPerMultiprocessor, (kMaxThreadsPerMultiprocessor / kWarpSize) / warps);
    if (shared_bytes > 0)
        blocks = std::min(blocks, (int)(kSharedPerMultiprocessor / (shared_bytes + kReservedSharedPerBlock)));
    return blocks;
}

cudaError_t max_potential_block_size(int *min_grid, int *block_size, const void *func, size_t dynamic_shared,
                                     int block_size_limit)
{
    if (!min_grid || !block_size)
        return fail(cudaErrorInvalidValue, "cudaOccupancyMaxPotentialBlockSize: pass the addresses of two ints");
    KernelInfo info = kernel_info(func);
    int largest = block_size_limit > 0 ? std::min(block_size_limit, kMaxThreadsPerBlock) : kMaxThreadsPerBlock;
    int best_size = 0, best_blocks = 0, best_threads = -1;
    for (int size = largest; size > 0; size = (size - 1) / kWarpSize * kWarpSize) {
        int blocks = active_blocks_per_multiprocessor(size, info.static_shared + dynamic_shared);
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
        if (size <= kWarpSize) break;
    }
    *block_size = best_size;
    *min_grid = best_blocks * kMultiprocessorCount;
    return cudaSuccess;
}

}  // namespace cudaemu

using namespace cudaemu;

extern "C" {

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int)
{
    if (!numBlocks) return fail(cudaErrorInvalidValue, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(NULL, ...)");
    KernelInfo info = kernel_info(func);
    *numBlocks = active_blocks_per_multiprocessor(blockSize, info.static_shared + dynamicSMemSize);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                          size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                      int blockSize)
{
    if (!dynamicSmemSize) return fail(cudaErrorInvalidValue, "cudaOccupancyAvailableDynamicSMemPerBlock(NULL, ...)");
    KernelInfo info = kernel_info(func);
    if (numBlocks <= 0 || blockSize <= 0) {
        *dynamicSmemSize = 0;
        return cudaSuccess;
    }
    std::size_t per_block = kSharedPerMultiprocessor / (std::size_t)numBlocks;
    per_block = per_block > kReservedSharedPerBlock ? per_block - kReservedSharedPerBlock : 0;
    per_block = std::min(per_block, kSharedPerBlockOptin);
    *dynamicSmemSize = per_block > info.static_shared ? per_block - info.static_shared : 0;
    return cudaSuccess;
}

}  // extern "C"
