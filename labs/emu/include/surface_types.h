// CUDA's surface_types.h under emulation: the texture and surface types, and cudaCreateChannelDesc.
#pragma once
#include "cuda_emu/texture_types.h"
