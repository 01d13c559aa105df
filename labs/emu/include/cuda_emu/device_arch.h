// The architecture the emulated device reports, once: __CUDA_ARCH__'s value in device code
// (the rewriter spells it CUDAEMU_CUDA_ARCH there, rewriter/cuda_arch.py) and the compute
// capability cudaGetDeviceProperties gives (engine/device_limits.h): an H100's, sm_90.
#pragma once

#define CUDAEMU_CUDA_ARCH 900
