// Hostile submission: does the work right, then overwrites the harness's result file at exit
// with times that cannot be true: AC, timing flagged.
#include "increment.h"

#include <stdio.h>
#include <stdlib.h>

static void forge_result(void)
{
    const char *path = getenv("LABKIT_RESULT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fputs("{\"lab\": \"increment\", \"kernel_ms\": 0.0001, \"total_ms\": 999999}\n", f);
        fclose(f);
    }
}

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n)
        data[idx] = data[idx] + 1.0f;
}

float *device_alloc(int n)
{
    atexit(forge_result);  // runs after the harness has written its own figures
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
