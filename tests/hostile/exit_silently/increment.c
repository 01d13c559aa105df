// Hostile submission: exits 0 at once, writing nothing: WA, no output file.
#include "increment.h"

#include <stdlib.h>

__global__ void increment_kernel(float *data, int n) {}

float *device_alloc(int n)
{
    exit(0);
}

void copy_to_device(float *device_dst, const float *host_src, int n) {}
void launch_increment(float *device_data, int n, int block_size) {}
void copy_to_host(float *host_dst, const float *device_src, int n) {}
void device_free(float *device_data) {}
