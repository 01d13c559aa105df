// The emulated devices: CUDA_EMU_DEVICES of them, all alike, all this machine's CPU and
// memory. The current device is per CPU thread, as in CUDA.
#pragma once

#include "cuda_runtime.h"

namespace cudaemu {
int current_device();
// Fails with cudaErrorInvalidDevice, saying which devices exist.
cudaError_t invalid_device(const char *call, int device);
bool is_device(int device);
// The properties every emulated device reports (name "CPU emulation").
cudaDeviceProp device_properties(int device);
}  // namespace cudaemu
