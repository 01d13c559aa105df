// CUDA's surface_functions.h under emulation: texture fetches and surface reads and writes.
#pragma once
#include "cuda_runtime.h"
