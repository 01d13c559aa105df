// Built with AddressSanitizer by tests/emu (see asan_test.cu): the last block writes past the
// end of a cudaMalloc'd array, and ASan must name this file and the line of the write.
#include <stdio.h>

__global__ void write_one_past(int *data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = i;  // PLANTED: no bounds check; thread 100 writes data[100]
}

int main()
{
    int *data = NULL;
    cudaMalloc(&data, 100 * sizeof(int));
    write_one_past<<<4, 32>>>(data);  // 128 threads for 100 elements
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
