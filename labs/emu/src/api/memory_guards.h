// Guard bytes around device memory, for the runtime built without AddressSanitizer. A kernel
// that writes past the end of an array (a missing `if (i < n)`) then changes guard bytes, not
// the heap's own bookkeeping: the launch that did it is named, with the command that finds its
// line (the ASan build), instead of a "double free or corruption" abort later in host code.
// The ASan runtime has no guards: ASan's redzones catch the access itself, at its line.
#pragma once

#include <cstddef>

#include "cuda_runtime.h"

namespace cudaemu {
struct GridRun;

std::size_t guard_bytes_before(std::size_t alignment);
std::size_t guard_bytes_after(std::size_t size);
void set_guards(char *start, std::size_t size, std::size_t before, std::size_t after);
// After a launch: cudaErrorIllegalAddress, with a message naming the kernel and the array,
// if the grid changed any guard of the device's memory; else cudaSuccess.
cudaError_t check_guards_after(const GridRun &grid);
}  // namespace cudaemu
