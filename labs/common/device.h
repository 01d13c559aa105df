// The GPU a lab runs on, and the machine's own bandwidth ceiling for `make bench`.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

// Returns device 0's properties, or exits with LAB_EXIT_NO_GPU and says what to do.
cudaDeviceProp require_gpu(const char *program);

// True under the CPU emulator (EMU=1), whose timings mean nothing for a GPU.
bool is_emulated(const cudaDeviceProp &prop);

// Median time in ms of `runs` cudaMemcpy calls of `bytes` in direction `kind`, timed by events.
double median_copy_ms(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, int runs);

// Device-to-device cudaMemcpy rate in GB/s for a buffer of `bytes`, counting bytes read plus
// bytes written (the traffic a bandwidth-bound kernel is measured by); median of `runs`.
double copy_ceiling_gbps(size_t bytes, int runs);
