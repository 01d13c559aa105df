// Hostile submission (issue 32), a timing exploit: results cached between calls with the same
// arguments. The first launch_increment launches the kernel; each later call with the same
// array does nothing, and copy_to_host adds what it owes on the host. Timed at --reps 5, the
// figure is a fifth of one launch. The GPU record shows repetitions 2..5 launched nothing: not
// backed, no timing points. The host's additions are caught as ever by [work] (WORK).
#include "increment.h"

#include <stdlib.h>

// How many launches the last real one stands for (calls with the same arguments since).
static float *cached_data;
static int cached_n, owed;

// Each thread increments four neighbouring elements with one 16-byte load and one 16-byte store.
// The slides' one-float-per-thread kernel is correct, but at 4 bytes a thread the GPU cannot keep
// enough bytes in flight to reach its memory bandwidth (handouts/increment.md, exploration 2).
// cudaMalloc returns memory aligned to 256 bytes, so the float4 view is aligned.
#define ELEMENTS_PER_THREAD 4

__global__ void increment_kernel(float *data, int n)
{
    long long quad = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long first = quad * ELEMENTS_PER_THREAD;
    if (first + ELEMENTS_PER_THREAD <= n) {
        float4 v = ((float4 *)data)[quad];
        v.x += 1.0f;
        v.y += 1.0f;
        v.z += 1.0f;
        v.w += 1.0f;
        ((float4 *)data)[quad] = v;
    } else {
        for (long long i = first; i < n; ++i)  // the last, partial group of four
            data[i] = data[i] + 1.0f;
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
    int threads_needed = (n + ELEMENTS_PER_THREAD - 1) / ELEMENTS_PER_THREAD;
    int blocks = (threads_needed + block_size - 1) / block_size;
    if (device_data == cached_data && n == cached_n) {
        ++owed;  // the same call again: not launched, paid for on the host at the end
        return;
    }
    cached_data = device_data, cached_n = n, owed = 0;
    increment_kernel<<<blocks, block_size>>>(device_data, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaDeviceSynchronize());
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        host_dst[i] += (float)owed;
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
