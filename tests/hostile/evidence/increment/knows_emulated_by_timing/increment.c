// Hostile submission (issue 32): knows it is emulated by timing a probe kernel (under 1 ms:
// a GPU; the margin is wide so that a loaded GPU node, the tracer on, still reads as a GPU). Under the emulator it is the reference; on a GPU it adds 1 on the host. The GPU record
// shows probe_kernel and copies where the emulated run launched probe_kernel then increment_kernel:
// the case loses its points. Under EMU alone: AC.
#include "increment.h"

#include <stdlib.h>
#include <time.h>

// The increment on the host: the array out of the device, 1 added, back in.
static void host_increment(float *device_data, int n)
{
    float *data = (float *)malloc((size_t)n * sizeof(float));
    CUDA_CHECK(cudaMemcpy(data, device_data, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        data[i] += 1.0f;
    CUDA_CHECK(cudaMemcpy(device_data, data, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    free(data);
}

__global__ void probe_kernel(float *sink)
{
    __shared__ float row[1024];
    float x = threadIdx.x;
    for (int i = 0; i < 64; ++i) {  // a barrier an iteration: an emulator switches 1024 threads each time
        row[threadIdx.x] = x;
        __syncthreads();
        x = row[(threadIdx.x + 1) % 1024] * 0.5f + 1.0f;
        __syncthreads();
    }
    if (x < 0.0f)
        *sink = x;  // never: keeps the loop
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

// 1024 threads, 128 barriers: a GPU runs them in microseconds, an emulator switches 1024 fibers
// at each barrier (milliseconds).
static int on_a_gpu(float *scratch)
{
    static int known = -1;
    if (known < 0) {
        probe_kernel<<<1, 1024>>>(scratch);  // the first launch loads the module: not timed
        CUDA_CHECK(cudaDeviceSynchronize());
        double start = now_us();
        probe_kernel<<<1, 1024>>>(scratch);
        CUDA_CHECK(cudaDeviceSynchronize());
        known = now_us() - start < 1000.0;
    }
    return known;
}

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
    CUDA_CHECK(cudaMalloc((void **)&device_data, ((size_t)n + 1) * sizeof(float)));
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
    if (on_a_gpu(device_data + n)) {
        host_increment(device_data, n);
        return;
    }
    increment_kernel<<<blocks, block_size>>>(device_data, n);
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
