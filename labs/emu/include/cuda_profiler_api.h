// cudaProfilerStart/Stop: accepted and ignored under emulation (there is no profiler).
#pragma once
#include "cuda_runtime_api.h"
