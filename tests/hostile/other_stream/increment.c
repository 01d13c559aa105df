// Hostile submission (GPU only): launches its slow kernel on a stream of its own that the
// harness's events do not wait for, and waits for it only in copy_to_host, so the events time
// almost nothing. The answer is right: AC, timing flagged (the host waited for work the events
// did not see: kernel_host_ms against kernel_ms).
#include "increment.h"

static cudaStream_t side_stream;

__global__ void increment_kernel(float *data, int n)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        long long start = clock64();
        while (clock64() - start < 100000000LL)  // about 50 ms: a slow kernel, hidden
            ;
        data[idx] = data[idx] + 1.0f;
    }
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
    if (side_stream == NULL)
        CUDA_CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    increment_kernel<<<(n + block_size - 1) / block_size, block_size, 0, side_stream>>>(device_data, n);
    CUDA_CHECK_LAUNCH();  // and no wait: the harness's stop event is recorded at once
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
