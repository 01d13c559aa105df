// cudaProfilerStart/Stop: accepted and ignored under emulation (there is no profiler).
#pragma once
// The guard macro nvcc's header defines; helper headers test it.
#define __CUDA_PROFILER_API_H__
#include "cuda_runtime_api.h"
