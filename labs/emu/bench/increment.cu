// The increment lab's kernel (one thread per element), timed at N = 2^20 under emulation.
#include "bench.h"

__global__ void increment_kernel(float *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] + 1.0f;
}

Timing time_increment_ms(int n, int block_size)
{
    float *data = nullptr;
    cudaMalloc(&data, (size_t)n * sizeof(float));
    cudaMemset(data, 0, (size_t)n * sizeof(float));
    int blocks = (n + block_size - 1) / block_size;
    return median_ms(9, [&] { increment_kernel<<<blocks, block_size>>>(data, n); });
}
