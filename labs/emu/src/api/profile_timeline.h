// The order of a profiled run's device work (EMU_PROFILE): each kernel launch, copy and fill in
// the order the program issued it, with its direction, bytes and devices. The grader holds it
// against the record a GPU run of the same case leaves (grader/evidence/record.py reads both),
// so it says only what a GPU's activity record also says.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cuda_runtime.h"

namespace cudaemu {

struct TimelineEvent {
    enum class Kind : unsigned char { Kernel, Copy, Memset } kind = Kind::Kernel;
    std::string kernel;      // Kernel: its name
    std::string file;        // Kernel: the source file of its launch
    bool harness = false;    // Kernel: launched from the harness's own code (CUDAEMU_HARNESS)
    const char *direction = "";  // Copy: "HtoD", "DtoH", "DtoD" (one device) or "PtoP" (two)
    std::size_t bytes = 0;   // Copy, Memset
    int device = 0;          // the device the work ran on (a copy: the device end; PtoP: the source)
    int src_device = -1, dst_device = -1;  // Copy: -1 for host memory
    dim3 grid{1, 1, 1}, block{1, 1, 1};
};

void timeline_kernel(const char *kernel, const char *file, bool harness, int device, dim3 grid, dim3 block);
// A copy of `bytes` in all (a 2D copy: width x height): its ends are classified by the memory
// registry; a copy between two host ranges is left out, as a GPU's record leaves it out.
void timeline_copy(void *dst, const void *src, std::size_t bytes);
void timeline_fill(void *dst, std::size_t bytes);
std::vector<TimelineEvent> timeline();

}  // namespace cudaemu
