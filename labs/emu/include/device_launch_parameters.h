// The built-in variables of a kernel. Each CPU thread of the emulator's pool runs one block
// at a time, so blockIdx, blockDim and gridDim are per CPU thread; threadIdx is set again at
// every switch between the block's threads (fibers), so all four read like CUDA's.
#pragma once
// The guard macro nvcc's header defines; helper headers test it.
#define __DEVICE_LAUNCH_PARAMETERS_H__

#include "vector_types.h"

extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;
