// Lab 1, increment: the functions the student writes in increment.c.
//
// The harness (main.cpp) owns the host array, the timing and the checking. It calls these in
// order: device_alloc, copy_to_device, launch_increment (once per repetition),
// copy_to_host, device_free. Each is one step of the slides' Lab #1 ([Baden & Unat 2010]).
#pragma once

#include "cuda_check.h"

// Allocates room for n floats in device memory and returns the device pointer.
float *device_alloc(int n);

// Copies n floats from the host array to the device array.
void copy_to_device(float *device_dst, const float *host_src, int n);

// Launches the kernel that adds 1 to each of the n elements, with block_size threads a
// block and enough blocks to cover n; checks the launch and waits for the kernel to finish.
void launch_increment(float *device_data, int n, int block_size);

// Copies n floats from the device array back to the host array.
void copy_to_host(float *host_dst, const float *device_src, int n);

// Frees the device array.
void device_free(float *device_data);
