// Hostile submission: leaves a process behind in a new session, then does the work right: AC,
// and nothing of it is left running after the case.
#include "increment.h"

#include <unistd.h>

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

void launch_increment(float *device_data, int n, int block_size)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            char *argv[] = {(char *)"labkit-hostile-daemon", (char *)"3600", NULL};
            execv("/bin/sleep", argv);
        }
        _exit(0);
    }
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
