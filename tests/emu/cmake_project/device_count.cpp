#include <cuda_runtime.h>

#include <cstdio>

int main()
{
    int devices = 0;
    const cudaError_t status = cudaGetDeviceCount(&devices);
    std::printf("%d device(s): %s\n", devices, cudaGetErrorString(status));
    return status == cudaSuccess && devices > 0 ? 0 : 1;
}
