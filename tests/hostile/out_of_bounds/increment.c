// Broken submission for --sanitize (GPU only, not in corpus.py's batch): the kernel has no bounds
// guard, so the last block's extra threads write past the array. The output is right and a plain
// run says AC; compute-sanitizer's memcheck names the kernel and the line.
#include "increment.h"

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    data[idx] = data[idx] + 1.0f;  // no "if (idx < n)"
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

void launch_increment(float *device_data, int n, int block_size)
{
    increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
