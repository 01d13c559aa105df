// Hostile: the reference's own kernel, with the kit's harness mark forged on its launch and its
// copies, and a #line that names the harness's file. The mark is a define only the kit's trusted
// make step gives (-DCUDAEMU_HARNESS, read with the emulator's header before this file), so the
// file redefines what the header made of it and builds its launch by hand under the emulator.
// Marked so, the work can only lose its points: the harness launches no kernel in a graded case.
#undef CUDAEMU_SITE_IS_HARNESS
#define CUDAEMU_SITE_IS_HARNESS true
#line 1 "labs/increment/main.cpp"
// Lab 1 reference solution: increment every element of an array on the GPU.
#include "increment.h"

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
#ifdef LABKIT_EMU
    ::cudaemu::launch_kernel(increment_kernel, "increment_kernel",
                             ::cudaemu::LaunchConfig(blocks, block_size, 0, 0, __FILE__, __LINE__, true))(device_data, n);
#else
    increment_kernel<<<blocks, block_size>>>(device_data, n);
#endif
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
