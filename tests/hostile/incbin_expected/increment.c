// Hostile submission: Build-time theft: .incbin of a testcase's expected output into the program, printed as its
// own result. Sandbox on: the assembler cannot see build/cases, so CE.
#include "increment.h"

#include <stdio.h>
#include <string.h>

__asm__(".section .rodata\n.global stolen_expected\nstolen_expected:\n"
        ".incbin \"build/cases/increment/small.expected\"\n.global stolen_end\nstolen_end:\n.previous\n");
extern const char stolen_expected[], stolen_end[];

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
    memcpy(host_dst, stolen_expected, (size_t)(stolen_end - stolen_expected) < (size_t)n * sizeof(float)
           ? (size_t)(stolen_end - stolen_expected) : (size_t)n * sizeof(float));
}
