// Hostile submission: Starts threads without end: RE at the process limit (it counts threads).
#include "increment.h"

#include <pthread.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
    (void)arg;
    sleep(60);
    return NULL;
}

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
    for (;;) {
        pthread_t thread;
        pthread_create(&thread, NULL, sleeper, NULL);
    }
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
