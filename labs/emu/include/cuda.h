// The CUDA driver API header. The emulator implements the runtime API only; this header
// exists so that code including <cuda.h> for CUDA_VERSION or the runtime still builds.
#pragma once

#include "cuda_runtime_api.h"

#define CUDA_VERSION 13000
