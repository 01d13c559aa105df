// The device-function side of the runtime, as declared to kernels (cuda_emu/block_sync.h).
#pragma once

#include "cuda_runtime.h"

namespace cudaemu {
void sync_grid();
bool in_cooperative_launch();
}  // namespace cudaemu
