// Lab 1: increment every element of an array on the GPU.
// Fill in each TODO; increment.h says what each function must do, and
// handouts/increment.md walks through them. Build and check with:  make check LAB=increment
#include "increment.h"

// TODO 1: the kernel. Each thread computes its global index from blockIdx.x, blockDim.x and
// threadIdx.x, and adds 1.0f to that element, but only if the index is below n (the last
// block usually has more threads than elements left).
__global__ void increment_kernel(float *data, int n)
{
}

float *device_alloc(int n)
{
    float *device_data = NULL;
    // TODO 2: allocate n floats on the device with cudaMalloc, inside CUDA_CHECK(...).
    LAB_TODO("allocate the device array in device_alloc");
    return device_data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    // TODO 3: copy n floats host -> device with cudaMemcpy (cudaMemcpyHostToDevice).
    LAB_TODO("copy the array to the device in copy_to_device");
}

void launch_increment(float *device_data, int n, int block_size)
{
    // TODO 4: the number of blocks: n / block_size, rounded UP so every element has a thread.
    // TODO 5: launch increment_kernel<<<blocks, block_size>>>(...), then CUDA_CHECK_LAUNCH()
    //         to catch a bad launch, then CUDA_CHECK(cudaDeviceSynchronize()) to wait for it.
    LAB_TODO("compute the grid size and launch the kernel in launch_increment");
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    // TODO 6: copy n floats device -> host with cudaMemcpy (cudaMemcpyDeviceToHost).
    LAB_TODO("copy the array back to the host in copy_to_host");
}

void device_free(float *device_data)
{
    // TODO 7: free the device array with cudaFree.
    LAB_TODO("free the device array in device_free");
}
