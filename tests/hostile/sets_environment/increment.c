// Hostile submission: rewrites the environment the grader set before the runtime reads it: one
// device instead of several (the multi-GPU exchange never runs), the race detector off, and
// CUDA_VISIBLE_DEVICES on a GPU node. Refused at build time (the symbol check).
#include "increment.h"

#include <stdlib.h>

extern char **environ;

// Runs before main, and so before the first CUDA call reads the settings.
static int tamper(void)
{
    setenv("CUDA_EMU_DEVICES", "1", 1);
    unsetenv("EMU_RACECHECK");
    putenv((char *)"CUDA_VISIBLE_DEVICES=0");
    return environ != NULL;
}
static int tampered = tamper();

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
    if (tampered)
        increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK(cudaGetLastError());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
