// CUB's per-primitive header: the emulator's part of CUB is one file.
#pragma once
#include "../cub.cuh"
