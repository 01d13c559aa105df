// The emulator's knobs, all from the environment (documented in handouts/emulation.md):
//   EMU_THREADS       CPU threads that run blocks (default: the machine's hardware threads)
//   EMU_STACK_KB      stack size of each CUDA thread's fiber (default 256, 1024 under ASan)
//   CUDA_EMU_DEVICES  how many devices to emulate (default 1)
//   CUDA_EMU_PEER_ACCESS  0: the devices cannot reach each other's memory (default 1)
//   EMU_SCHEDULE      see schedule.h
//   EMU_QUIET         1: no explanations of API errors on stderr (see diagnostics.h)
//   EMU_RACECHECK     1: the race detector (engine/race_detector.h), read at each launch
//   EMU_PROFILE       1 or a file: the kernel profile (engine/profiler.h), read at each launch
#pragma once

#include <cstddef>

namespace cudaemu {
unsigned int cpu_threads();
std::size_t fiber_stack_bytes();
int emulated_device_count();
bool peer_access_between_devices();
bool racecheck_on();
// EMU_PROFILE, read at each call; defined with the profile's writer (reports/profile_report.cpp),
// which also learns there where the profile goes at exit.
bool profile_on();
}  // namespace cudaemu
