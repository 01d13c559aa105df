// How many blocks of a kernel fit on one emulated SM at once: by threads (2048 an SM), by
// blocks (32), and by shared memory (228 KiB, 1 KiB reserved a block); registers are not
// emulated. Cooperative launches and the occupancy API both use it.
#pragma once

#include <cstddef>

namespace cudaemu {
int active_blocks_per_multiprocessor(int block_threads, std::size_t shared_bytes);
}  // namespace cudaemu
