// Hostile submission (issue 32), a timing exploit that only a GPU could allow: it never copies
// the input in and launches no kernel; copy_to_host copies back whatever a fresh allocation
// holds. Were the GPU to hand a new process the memory the reference solution's run left
// (the grader times the reference on the same case just before), the answer would be there.
// grader/evidence/stale_memory.cu measures whether it can (grader/evidence/README.md has the
// figure). Where fresh memory is scrubbed: WA. Under EMU: WA or WORK.
#include "increment.h"

float *device_alloc(int n)
{
    float *device_data = NULL;
    CUDA_CHECK(cudaMalloc((void **)&device_data, (size_t)n * sizeof(float)));
    return device_data;
}

void copy_to_device(float *device_dst, const float *host_src, int n)
{
    (void)device_dst, (void)host_src, (void)n;
}

void launch_increment(float *device_data, int n, int block_size)
{
    (void)device_data, (void)n, (void)block_size;
}

void copy_to_host(float *host_dst, const float *device_src, int n)
{
    CUDA_CHECK(cudaMemcpy(host_dst, device_src, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}

void device_free(float *device_data)
{
    CUDA_CHECK(cudaFree(device_data));
}
