// Where work issued to a stream meets CUDA graphs (src/api/graph_capture.cpp): while a stream is being
// captured (cudaStreamBeginCapture), the launch, copy, fill, host-function, event and
// stream-ordered allocation calls made on it become nodes of the capture's graph instead of
// running. Each such call asks here first; with no capture anywhere that costs one load.
#pragma once

#include <atomic>

#include "cuda_runtime.h"

namespace cudaemu {

// Streams being captured, plus kernel nodes being bound (cudaGraphAddKernelNode).
extern std::atomic<int> captures_active;
inline bool capture_possible() { return captures_active.load(std::memory_order_relaxed) != 0; }

// Each returns true when the work was captured (or refused because of the capture), with the
// call's result in *result; false when it should run as usual.
bool capture_kernel(const LaunchConfig &config, const KernelCall &call, bool cooperative, cudaError_t *result);
bool capture_copy(cudaStream_t stream, const cudaMemcpy3DParms &copy, cudaError_t *result);
bool capture_copy_1d(cudaStream_t stream, void *dst, const void *src, std::size_t count, cudaMemcpyKind kind,
                     cudaError_t *result);
bool capture_memset(cudaStream_t stream, const cudaMemsetParams &fill, cudaError_t *result);
bool capture_host_function(cudaStream_t stream, cudaHostFn_t fn, void *user_data, cudaError_t *result);
bool capture_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t *result);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t *result);
bool capture_malloc(cudaStream_t stream, void **pointer, std::size_t size, cudaError_t *result);
bool capture_free(cudaStream_t stream, void *pointer, cudaError_t *result);
// A call that waits for a stream (cudaStreamSynchronize, cudaStreamQuery) on a capturing one.
bool capture_refuses_sync(cudaStream_t stream, const char *call, cudaError_t *result);

// cudaFree of memory a graph's memory-alloc node made (MemoryKind::Graph).
cudaError_t free_graph_allocation(const char *call, void *pointer);

}  // namespace cudaemu
