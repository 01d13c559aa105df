// Runs all blocks of a grid on the emulator's CPU threads: the launching thread and a pool
// of EMU_THREADS - 1 more take blocks in turn until none is left. A cooperative launch
// instead gets one CPU thread per block, so that every block is resident at once and
// this_grid().sync() can wait for all of them.
#pragma once

#include "engine/grid_run.h"

namespace cudaemu {
void execute_grid(GridRun &grid);
void execute_cooperative_grid(GridRun &grid);
}  // namespace cudaemu
