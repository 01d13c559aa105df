// Hostile submission: A macro that expands to 4^16 tokens: the build's memory limit stops the compiler, a CE.
#include "increment.h"

#define A0 x x x x
#define A1 A0 A0 A0 A0
#define A2 A1 A1 A1 A1
#define A3 A2 A2 A2 A2
#define A4 A3 A3 A3 A3
#define A5 A4 A4 A4 A4
#define A6 A5 A5 A5 A5
#define A7 A6 A6 A6 A6
#define A8 A7 A7 A7 A7
#define A9 A8 A8 A8 A8
#define A10 A9 A9 A9 A9
#define A11 A10 A10 A10 A10
#define A12 A11 A11 A11 A11
#define A13 A12 A12 A12 A12
#define A14 A13 A13 A13 A13
#define A15 A14 A14 A14 A14
static int bomb[] = { A15 };

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
    increment_kernel<<<(n + block_size - 1) / block_size, block_size>>>(device_data, n);
    CUDA_CHECK(cudaGetLastError());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}
