// CUDA's pipeline header, as the CPU emulator (EMU=1) provides it: the primitives only
// (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior), not the
// nvcuda::experimental::pipeline class.
#pragma once

#include "cuda_pipeline_primitives.h"
