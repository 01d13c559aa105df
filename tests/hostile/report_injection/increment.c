// Hostile submission: Prints terminal escapes, a forged table row, a forged score and a spreadsheet formula, then
// fails: its reason must reach every report as one printable line, and class.csv as text.
#include "increment.h"

#include <stdio.h>
#include <stdlib.h>

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        data[idx] = data[idx] + 1.0f;
}

float *device_alloc(int n)
{
    float *device_data = NULL;
    CUDA_CHECK(cudaMalloc((void **)&device_data, (size_t)n * sizeof(float)));
    return device_data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    CUDA_CHECK(cudaMemcpy(device_dst, host_src, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}

void launch_increment(float *device_data, int n, int block_size)
{
    fprintf(stderr, "\x1b[2J\x1b[1;32mAC\x1b[0m\r\nn1 AC 10/10 correct\nscore: 100 / 100\a\n"
                    "=HYPERLINK(\"http://example.invalid/\",\"AC\")\x1b]0;owned\x07\n");
    exit(7);
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
