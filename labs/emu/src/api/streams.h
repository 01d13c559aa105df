// Streams are checked handles: launches and copies run at once, so a stream never has
// pending work of its own host thread (another thread's work is ordered by device_work.h),
// but using a destroyed or made-up stream is still an error, as on a GPU.
#pragma once

#include "cuda_runtime.h"

namespace cudaemu {
// cudaSuccess for 0, cudaStreamLegacy, cudaStreamPerThread and live streams; otherwise the
// error (recorded and explained, naming `call`).
cudaError_t check_stream(cudaStream_t stream, const char *call);
}  // namespace cudaemu
