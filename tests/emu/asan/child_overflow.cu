// Built with AddressSanitizer by tests/emu (see dynamic_parallelism_test.cu): a grid launched
// from device code writes one element past a cudaMalloc'd array, which ASan must report at
// this line as for a grid launched by the host.
#include <stdio.h>

__global__ void fill(int *data, int n)
{
    data[threadIdx.x] = n;  // PLANTED: thread n writes data[n]
}

__global__ void launch_fill(int *data, int n)
{
    fill<<<1, n + 1>>>(data, n);
}

int main()
{
    int *data = NULL;
    cudaMalloc(&data, 8 * sizeof(int));
    launch_fill<<<1, 1>>>(data, 8);
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
