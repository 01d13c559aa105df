// The CUDA driver API header. The emulator implements the runtime API only; this header
// exists so that code including <cuda.h> for CUDA_VERSION or the runtime still builds.
#pragma once
// nvcc's cuda.h defines __cuda_cuda_h__; this one must not: helper_cuda.h takes it to mean that
// the driver API (CUresult, cuGetErrorName) is there, and it is not.

#include "cuda_runtime_api.h"

#define CUDA_VERSION 13000
