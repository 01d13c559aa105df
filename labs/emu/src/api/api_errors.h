// How API calls fail: like CUDA, by returning the error and recording it as the CPU thread's
// last error; unlike CUDA, also by saying on stderr what was wrong and what to do, since
// the emulator can see things a GPU's driver does not report.
#pragma once

#include "cuda_runtime.h"

namespace cudaemu {
cudaError_t fail(cudaError_t error, const char *format, ...) __attribute__((format(printf, 2, 3)));
// Records the error without a message (for errors the program expects, like a query's).
cudaError_t record_error(cudaError_t error);
// An error that, as on a GPU, every later synchronizing call returns (a device-side assert
// leaves the context unusable): set once, by the kernel that failed.
void set_sticky_error(cudaError_t error);
cudaError_t sticky_error();
}  // namespace cudaemu
