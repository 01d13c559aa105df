// Lab 1: increment an array on the GPU.
// One thread per element, with the bounds check in the kernel. The grid is n / block_size
// blocks: integer division, so I get exactly enough blocks for the elements.
#include "increment.h"

__global__ void increment_kernel(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = data[i] + 1.0f;
}

float *device_alloc(int n)
{
    float *d = NULL;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof(float) * n));
    return d;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    CUDA_CHECK(cudaMemcpy(device_dst, host_src, sizeof(float) * n, cudaMemcpyHostToDevice));
}

void launch_increment(float *device_data, int n, int block_size)
{
    int blocks = n / block_size;
    increment_kernel<<<blocks, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, sizeof(float) * n, cudaMemcpyDeviceToHost));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
