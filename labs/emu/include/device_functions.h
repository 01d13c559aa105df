// Older CUDA code includes this for __syncthreads and kin; they come with cuda_runtime.h.
#pragma once
#include "cuda_runtime.h"
