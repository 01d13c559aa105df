#include <cuda_runtime.h>

__device__ float scaled(float value, float factor);

__global__ void add_scaled(const float *a, const float *b, float *sum, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sum[i] = a[i] + scaled(b[i], 2.0f);
}

// Returns how many elements differ from a[i] + 2 b[i], or -1 when a CUDA call fails.
int check_vector_add(int n)
{
    float *a, *b, *sum;
    if (cudaMallocManaged(&a, n * sizeof(float)) != cudaSuccess || cudaMallocManaged(&b, n * sizeof(float)) != cudaSuccess ||
        cudaMallocManaged(&sum, n * sizeof(float)) != cudaSuccess)
        return -1;
    for (int i = 0; i < n; ++i) {
        a[i] = (float)i;
        b[i] = 0.5f * i;
    }
    add_scaled<<<(n + 127) / 128, 128>>>(a, b, sum, n);
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += sum[i] != 2.0f * i;
    cudaFree(a);
    cudaFree(b);
    cudaFree(sum);
    return wrong;
}
